# tests/readers.mk

# tests/wire.mk

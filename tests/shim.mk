# tests/shim.mk

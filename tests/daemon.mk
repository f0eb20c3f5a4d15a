# tests/daemon.mk

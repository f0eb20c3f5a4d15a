# tests/mpiio.mk

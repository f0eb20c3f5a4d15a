# libtrace/mpiio.mk

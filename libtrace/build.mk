# libtrace: build fragment (see top-level Makefile)
include libtrace/mpiio.mk

# common: build fragment (see top-level Makefile)

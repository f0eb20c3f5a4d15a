# examples: build fragment (see top-level Makefile)

# bench: build fragment (see top-level Makefile)

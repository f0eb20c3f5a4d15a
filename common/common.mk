# SPDX-License-Identifier: BSD-3-Clause
# common/: build fragment (see top-level Makefile).
# libftiocommon.a: the wire codec (wire.h), the batch -> requests conversion
# (batch_requests.h), names, path hash (hash.h), the sender side of
# authentication (auth.h), CURVE keys (curve.h), the control socket's requests
# and client (control.h), the
# ingest transport with its acknowledgements (transport.h), step-qualified job
# ids (jobid.h), what names an application for the memory of runs
# (app_key.h), the option tables of every command (cliopt.h), human units
# (units.h), numbers written without stdio (numfmt.h), the growth of arrays
# (grow.h: from the heap, or from a first static buffer) and of big arrays on huge pages
# (bigarray.h: offline ftio's per-request columns and scratch), and the size of
# one msgpack value from its headers (msgpack_skip.h: the wire decoder and the
# TMIO reader).
# Objects are -fPIC (CFLAGS), so libftio.so links this archive too.
COMMON_SRCS := common/wire_encode.c common/wire_decode.c common/batch_requests.c common/names.c \
               common/cliopt.c common/units.c common/grow.c common/bigarray.c \
               common/hash.c common/auth.c common/curve.c common/control.c common/transport.c \
               common/jobid.c common/app_key.c common/msgpack_skip.c common/numfmt.c
COMMON_OBJS := $(patsubst %.c,$(B)/%.o,$(COMMON_SRCS))
COMMON_LIB  := $(B)/lib/libftiocommon.a

$(COMMON_LIB): $(COMMON_OBJS)

ALL_TARGETS += $(COMMON_LIB)

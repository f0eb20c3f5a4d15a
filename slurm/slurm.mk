# SPDX-License-Identifier: BSD-3-Clause
# slurm/: build fragment (see top-level Makefile).
# spank_ftio.so, the SPANK plugin behind `srun --ftio` (slurm/spank_ftio.c).
# Built only where <slurm/spank.h> is (Debian libslurm-dev, installed by
# mk/deps.sh).  The plugin takes the control client (common/control.c, curve.c, auth.c) and the
# job-id rules (jobid.c) from common/, compiled into it privately
# (--exclude-libs and hidden symbols: nothing can clash with Slurm's); Slurm's
# own functions resolve in srun/slurmstepd at load time.  It is never built
# with the sanitizers (`make asan`): srun and slurmstepd are not instrumented,
# and an ASan-linked plugin could not be loaded into them.
SLURM_INCLUDE ?= /usr/include
SPANK_H       := $(wildcard $(SLURM_INCLUDE)/slurm/spank.h)

ifneq ($(SPANK_H),)
SPANK_LIB    := $(B)/lib/spank_ftio.so
SPANK_SRCS   := slurm/spank_ftio.c common/control.c common/curve.c common/auth.c common/jobid.c
SPANK_OBJS   := $(patsubst %.c,$(B)/spank/%.o,$(SPANK_SRCS))
SPANK_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS)) -fvisibility=hidden \
                $(if $(filter-out /usr/include,$(SLURM_INCLUDE)),-I$(SLURM_INCLUDE))

$(B)/spank/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(SPANK_CFLAGS) -MMD -MP -c $< -o $@

# lib='s default, the installed shim, is compiled in (mk/paths.mk)
$(B)/spank/slurm/spank_ftio.o: $(FTIO_PATHS_H)

$(SPANK_LIB): $(SPANK_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ -pthread -Wl,--as-needed $(ZMQ_LIBS) $(JANSSON_LIBS)

ALL_TARGETS += $(SPANK_LIB)
INSTALL_PLUGIN += $(SPANK_LIB)
endif

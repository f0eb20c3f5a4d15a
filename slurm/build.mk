# slurm/: build fragment (see top-level Makefile).
# spank_ftio.so, the SPANK plugin behind `srun --ftio` (slurm/spank_ftio.c).
# Built only where <slurm/spank.h> is (Debian libslurm-dev, installed by
# mk/deps.sh).  The plugin takes the status client and the job-id rules from
# libftiocommon.a, linked in privately (--exclude-libs: none of its symbols
# can clash with Slurm's); Slurm's own functions resolve in srun/slurmstepd.
SLURM_INCLUDE ?= /usr/include
SPANK_H       := $(wildcard $(SLURM_INCLUDE)/slurm/spank.h)

ifneq ($(SPANK_H),)
SPANK_LIB := $(B)/lib/spank_ftio.so

$(B)/slurm/spank_ftio.o: CFLAGS += $(if $(filter-out /usr/include,$(SLURM_INCLUDE)),-I$(SLURM_INCLUDE)) -DFTIO_SPANK_LIB=\"$(PREFIX)/lib/libftio.so\"

$(SPANK_LIB): $(B)/slurm/spank_ftio.o $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $< $(COMMON_LIB) -Wl,--exclude-libs,ALL -Wl,--as-needed $(LDFLAGS) \
	  $(ZMQ_LIBS) $(MSGPACK_LIBS)

ALL_TARGETS += $(SPANK_LIB)
INSTALL_LIB += $(SPANK_LIB)
endif

# SPDX-License-Identifier: BSD-3-Clause
# predictor/history.mk -- libftiohistory.a, the memory of runs
# (predictor/history/history.h): its store behind one interface, SQLite
# (db_sqlite.c) or PostgreSQL (db_pg.c).  Linked by ftiod (its history
# thread) and ftio (`ftio history`, `ftio scan --history`).
HISTORY_SRCS := $(wildcard predictor/history/*.c)
HISTORY_OBJS := $(HISTORY_SRCS:%.c=$(B)/%.o)
HISTORY_LIB  := $(B)/lib/libftiohistory.a
# Debian's libsqlite3-dev and libpq-dev (mk/deps.sh)
HISTORY_LIBS := -lsqlite3 -lpq
$(HISTORY_OBJS): CFLAGS += $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)

$(HISTORY_LIB): $(HISTORY_OBJS)

ALL_TARGETS += $(HISTORY_LIB)

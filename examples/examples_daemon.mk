# SPDX-License-Identifier: BSD-3-Clause
# examples/examples_daemon.mk -- prediction consumers and the live demo (daemon engineer).
#   $(B)/bin/subscriber   examples/subscriber.c: a scheduler using next.start/next.bytes
#   examples/subscriber.py  the same with pyzmq (not built)
#   examples/demo.sh        run by `make demo`
$(B)/bin/subscriber: $(B)/examples/subscriber.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ZMQ_LIBS) $(JANSSON_LIBS) -lm

ALL_TARGETS += $(B)/bin/subscriber

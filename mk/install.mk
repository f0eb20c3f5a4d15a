# SPDX-License-Identifier: BSD-3-Clause
# mk/install.mk -- `make install` and `make uninstall` (included by the
# top-level Makefile after every fragment has filled the INSTALL_* lists).
#
#   make install [DESTDIR=/tmp/stage] [PREFIX=/usr] [LIBDIR=/usr/lib/x86_64-linux-gnu] ...
#   make uninstall   with the same variables: removes exactly what install put there
#
# install builds only what it installs (the programs, libftio.so), never the
# Check tests, test tools or benchmarks; without an MPI compiler the MPI
# programs are left out (a line says so).  Installed:
#   $(BINDIR)           ftio, ftiod, ftio-scan-mpi (with mpicc)
#   $(LIBDIR)           libftio.so.$(VERSION), its soname link and libftio.so;
#                       spank_ftio.so (a plugin: no version, no links)
#   $(PKGCONFIGDIR)     ftio.pc (`pkg-config --variable=preload ftio`: the
#                       path to put in LD_PRELOAD)
#   $(INCLUDEDIR)       ftio.h
#   $(MANDIR)/manN      ftio(1), ftiod(1), libftio(7)
#   $(DOCDIR)           README.md, docs/, libtrace/README.md, examples/ (sources)
#   $(SYSTEMDUNITDIR)   ftiod.service, ftio-relay.service;  $(SYSUSERSDIR)/ftio.conf
#                       (the `ftio` user both run as)
#   $(SYSCONFDIR)/ftio/ftiod.conf, relay.env   only when none is there (a site's
#                       edits stay); $(SYSCONFDIR)/ftio/clients/ (0755, for the
#                       CURVE public keys of the scheduler and admins)
#   $(LOGROTATEDIR)/ftiod   (/etc/logrotate.d for PREFIX=/usr or /usr/local)
#   $(MODULEFILEDIR)/ftio/$(VERSION)   environment-modules file
# The packaging/ files are templates: @BINDIR@, @SYSCONFDIR@ ... become the
# directories of this installation (without DESTDIR, which only stages).
# A fragment adds files by appending to INSTALL_BIN (programs and scripts),
# INSTALL_LIB (libX.so.A.B.C), INSTALL_PLUGIN (X.so, as is), INSTALL_INC, INSTALL_MAN, INSTALL_DOC or
# INSTALL_SUBST (TEMPLATE:INSTALLED-PATH) or INSTALL_CONF (SOURCE:PATH, never
# overwritten); uninstall follows the same lists.

# The directories (PREFIX, LIBDIR, SYSCONFDIR ...) are set in mk/paths.mk.

INSTALL_DOC += README.md $(wildcard docs/*.md docs/*.png) \
               $(wildcard examples/*.md examples/*.c examples/*.py)
# Templates (@VAR@ replaced by SUBST) and where each goes: TEMPLATE:FILE.
INSTALL_SUBST += mk/ftio.pc.in:$(PKGCONFIGDIR)/ftio.pc \
                 packaging/ftiod.service:$(SYSTEMDUNITDIR)/ftiod.service \
                 packaging/ftio-relay.service:$(SYSTEMDUNITDIR)/ftio-relay.service \
                 packaging/ftio.sysusers:$(SYSUSERSDIR)/ftio.conf \
                 packaging/ftiod.logrotate:$(LOGROTATEDIR)/ftiod \
                 packaging/modulefile/ftio:$(MODULEFILEDIR)/ftio/$(VERSION)
# Configuration files, SOURCE:FILE: installed only where none is (a site's
# edits stay), removed by uninstall only when still as shipped.  ftiod.conf
# (read by `ftiod --config`) when the tree has one; FTIOD_CONF=FILE installs
# another.
FTIOD_CONF := $(wildcard packaging/ftiod.conf)
INSTALL_CONF += $(if $(FTIOD_CONF),$(FTIOD_CONF):$(SYSCONFDIR)/ftio/ftiod.conf) \
                packaging/ftio-relay.env:$(SYSCONFDIR)/ftio/relay.env

SUBST = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
            -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
            -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@MANDIR@|$(MANDIR)|g' \
            -e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@PKGCONFIGDIR@|$(PKGCONFIGDIR)|g' \
            -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@LOGDIR@|$(LOGDIR)|g' \
            -e 's|@SONAME@|$(SHIM_SONAME)|g'

DEST = $(DESTDIR)

# Shared libraries are installed as libX.so.A.B.C with the links
# libX.so.A (soname) and libX.so; one shell function for install and uninstall.
LIB_LINKS = so_links() { f=$$(basename "$$1"); v=$${f\#*.so.}; \
              echo "$${f%%.so.*}.so.$${v%%.*} $${f%%.so.*}.so"; }

install: $(INSTALL_BIN) $(INSTALL_LIB) $(INSTALL_PLUGIN)
ifeq ($(HAVE_MPICC),)
	@echo "install: no $(MPICC): ftio-scan-mpi (MPI ftio scan) is not installed"
endif
ifneq ($(LOGROTATEDIR),/etc/logrotate.d)
	@echo "install: logrotate reads /etc/logrotate.d only: link $(LOGROTATEDIR)/ftiod there to rotate $(LOGDIR)"
endif
	install -d $(DEST)$(BINDIR) $(DEST)$(LIBDIR) $(DEST)$(INCLUDEDIR)
	install -m 755 $(INSTALL_BIN) $(DEST)$(BINDIR)
	@$(LIB_LINKS); for l in $(INSTALL_LIB); do \
	  echo "install -m 755 $$l $(DEST)$(LIBDIR)"; install -m 755 $$l $(DEST)$(LIBDIR) || exit 1; \
	  set -- $$(so_links $$l); f=$$(basename $$l); \
	  ln -sf $$f $(DEST)$(LIBDIR)/$$1 && ln -sf $$1 $(DEST)$(LIBDIR)/$$2 || exit 1; \
	done
	$(if $(strip $(INSTALL_PLUGIN)),install -m 755 $(INSTALL_PLUGIN) $(DEST)$(LIBDIR))
	install -d -m 755 $(DEST)$(SYSCONFDIR)/ftio/clients
	install -m 644 $(INSTALL_INC) $(DEST)$(INCLUDEDIR)
	@for m in $(INSTALL_MAN); do s=$${m##*.}; \
	  install -d $(DEST)$(MANDIR)/man$$s && install -m 644 $$m $(DEST)$(MANDIR)/man$$s || exit 1; done
	@for f in $(INSTALL_DOC); do install -D -m 644 $$f $(DEST)$(DOCDIR)/$$f || exit 1; done
	@for p in $(INSTALL_SUBST); do src=$${p%%:*}; dst=$(DEST)$${p#*:}; \
	  echo "subst $$src > $$dst"; install -d $$(dirname $$dst) && $(SUBST) $$src >$$dst || exit 1; done
	@for p in $(INSTALL_CONF); do src=$${p%%:*}; dst=$(DEST)$${p#*:}; \
	  if [ -e $$dst ]; then echo "install: $$dst exists: kept"; \
	  else echo "install -m 644 $$src $$dst"; install -D -m 644 $$src $$dst || exit 1; fi; done

# Removes each installed file by name; the configuration file only when it
# is still the one shipped (a site's edits stay), then ftio's own
# directories when empty.
uninstall:
	rm -f $(addprefix $(DEST)$(BINDIR)/,$(notdir $(INSTALL_BIN) $(SCAN_MPI_BIN))) \
	  $(addprefix $(DEST)$(LIBDIR)/,$(notdir $(INSTALL_PLUGIN))) \
	  $(addprefix $(DEST)$(INCLUDEDIR)/,$(notdir $(INSTALL_INC))) \
	  $(foreach p,$(INSTALL_SUBST),$(DEST)$(lastword $(subst :, ,$(p))))
	@$(LIB_LINKS); for l in $(INSTALL_LIB); do f=$$(basename $$l); \
	  echo "rm -f $(DEST)$(LIBDIR)/$$f $$(so_links $$l)"; \
	  for n in $$f $$(so_links $$l); do rm -f $(DEST)$(LIBDIR)/$$n; done; done
	@for m in $(INSTALL_MAN); do rm -f $(DEST)$(MANDIR)/man$${m##*.}/$$(basename $$m); done
	@for f in $(INSTALL_DOC); do rm -f $(DEST)$(DOCDIR)/$$f; done
	@for p in $(INSTALL_CONF); do src=$${p%%:*}; dst=$(DEST)$${p#*:}; \
	  if cmp -s $$src $$dst; then rm -f $$dst; \
	  elif [ -e $$dst ]; then echo "uninstall: $$dst was changed: kept"; fi; done
	@for d in $$(printf '%s\n' $(sort $(dir $(INSTALL_DOC))) | sort -r); do \
	  [ "$$d" = ./ ] || rmdir $(DEST)$(DOCDIR)/$$d 2>/dev/null; done; \
	rmdir $(DEST)$(DOCDIR) $(DEST)$(SYSCONFDIR)/ftio/clients $(DEST)$(SYSCONFDIR)/ftio \
	  $(DEST)$(MODULEFILEDIR)/ftio 2>/dev/null; true

.PHONY: install uninstall

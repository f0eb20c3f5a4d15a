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
#   $(LIBDIR)           libftio.so.$(VERSION), its soname link and libftio.so
#   $(PKGCONFIGDIR)     ftio.pc (`pkg-config --variable=preload ftio`: the
#                       path to put in LD_PRELOAD)
#   $(INCLUDEDIR)       ftio.h
#   $(MANDIR)/manN      ftio(1), ftiod(1), libftio(7)
#   $(DOCDIR)           README.md, docs/, libtrace/README.md, examples/ (sources)
#   $(SYSTEMDUNITDIR)   ftiod.service;  $(SYSUSERSDIR)/ftio.conf (the `ftio` user)
#   $(SYSCONFDIR)/ftio/ftiod.conf      only when none is there (a site's edits stay)
#   $(SYSCONFDIR)/logrotate.d/ftiod
#   $(MODULEFILEDIR)/ftio/$(VERSION)   environment-modules file
# The packaging/ files are templates: @BINDIR@, @SYSCONFDIR@ ... become the
# directories of this installation (without DESTDIR, which only stages).

PREFIX         ?= /usr/local
BINDIR         ?= $(PREFIX)/bin
LIBDIR         ?= $(PREFIX)/lib
INCLUDEDIR     ?= $(PREFIX)/include
DATADIR        ?= $(PREFIX)/share
MANDIR         ?= $(DATADIR)/man
DOCDIR         ?= $(DATADIR)/doc/ftio
PKGCONFIGDIR   ?= $(LIBDIR)/pkgconfig
# /etc for a system installation (PREFIX=/usr), else under the prefix.
SYSCONFDIR     ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
# systemd looks in /usr/lib/systemd/system and /usr/local/lib/systemd/system;
# not under LIBDIR, which may be a multiarch directory.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR    ?= $(PREFIX)/lib/sysusers.d
MODULEFILEDIR  ?= $(DATADIR)/modulefiles
# Where ftiod.service lets ftiod write (LogsDirectory=, StateDirectory=,
# RuntimeDirectory=): fixed by systemd, named in the logrotate snippet.
LOGDIR         ?= /var/log/ftio

INSTALL_DOC += README.md $(wildcard docs/*.md docs/*.png) \
               $(wildcard examples/*.c examples/*.py)
# Packaging: template -> installed name below its directory variable.
FTIOD_CONF := $(wildcard packaging/ftiod.conf)

SUBST = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
            -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
            -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@MANDIR@|$(MANDIR)|g' \
            -e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@PKGCONFIGDIR@|$(PKGCONFIGDIR)|g' \
            -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@LOGDIR@|$(LOGDIR)|g' \
            -e 's|@SONAME@|$(SHIM_SONAME)|g'

D := $(DESTDIR)

# Shared libraries are installed as libX.so.A.B.C with the links
# libX.so.A (soname) and libX.so; one shell function for install and uninstall.
LIB_LINKS = so_links() { f=$$(basename "$$1"); v=$${f\#*.so.}; \
              echo "$${f%%.so.*}.so.$${v%%.*} $${f%%.so.*}.so"; }

install: $(INSTALL_BIN) $(INSTALL_LIB)
ifeq ($(HAVE_MPICC),)
	@echo "install: no $(MPICC): ftio-scan-mpi (MPI ftio scan) is not installed"
endif
	install -d $(D)$(BINDIR) $(D)$(LIBDIR) $(D)$(PKGCONFIGDIR) $(D)$(INCLUDEDIR) \
	  $(D)$(SYSTEMDUNITDIR) $(D)$(SYSUSERSDIR) $(D)$(SYSCONFDIR)/ftio \
	  $(D)$(SYSCONFDIR)/logrotate.d $(D)$(MODULEFILEDIR)/ftio
	install -m 755 $(INSTALL_BIN) $(D)$(BINDIR)
	@$(LIB_LINKS); for l in $(INSTALL_LIB); do \
	  echo "install -m 755 $$l $(D)$(LIBDIR)"; install -m 755 $$l $(D)$(LIBDIR) || exit 1; \
	  set -- $$(so_links $$l); f=$$(basename $$l); \
	  ln -sf $$f $(D)$(LIBDIR)/$$1 && ln -sf $$1 $(D)$(LIBDIR)/$$2 || exit 1; \
	done
	install -m 644 $(INSTALL_INC) $(D)$(INCLUDEDIR)
	@for m in $(INSTALL_MAN); do s=$${m##*.}; \
	  install -d $(D)$(MANDIR)/man$$s && install -m 644 $$m $(D)$(MANDIR)/man$$s || exit 1; done
	@for f in $(INSTALL_DOC); do install -D -m 644 $$f $(D)$(DOCDIR)/$$f || exit 1; done
	@echo "subst mk/ftio.pc.in > $(D)$(PKGCONFIGDIR)/ftio.pc"; $(SUBST) mk/ftio.pc.in > $(D)$(PKGCONFIGDIR)/ftio.pc
	@echo "subst packaging/ftiod.service > $(D)$(SYSTEMDUNITDIR)/ftiod.service"; $(SUBST) packaging/ftiod.service > $(D)$(SYSTEMDUNITDIR)/ftiod.service
	@echo "subst packaging/ftio.sysusers > $(D)$(SYSUSERSDIR)/ftio.conf"; $(SUBST) packaging/ftio.sysusers > $(D)$(SYSUSERSDIR)/ftio.conf
	@echo "subst packaging/ftiod.logrotate > $(D)$(SYSCONFDIR)/logrotate.d/ftiod"; $(SUBST) packaging/ftiod.logrotate > $(D)$(SYSCONFDIR)/logrotate.d/ftiod
	@echo "subst packaging/modulefile/ftio > $(D)$(MODULEFILEDIR)/ftio/$(VERSION)"; $(SUBST) packaging/modulefile/ftio > $(D)$(MODULEFILEDIR)/ftio/$(VERSION)
ifneq ($(FTIOD_CONF),)
	@if [ -e $(D)$(SYSCONFDIR)/ftio/ftiod.conf ]; then \
	  echo "install: $(D)$(SYSCONFDIR)/ftio/ftiod.conf exists: kept"; \
	else install -m 644 $(FTIOD_CONF) $(D)$(SYSCONFDIR)/ftio/ftiod.conf; fi
endif

# Removes each installed file by name; the configuration file only when it
# is still the one shipped (a site's edits stay), then ftio's own
# directories when empty.
uninstall:
	rm -f $(addprefix $(D)$(BINDIR)/,$(notdir $(INSTALL_BIN) $(SCAN_MPI_BIN))) \
	  $(addprefix $(D)$(INCLUDEDIR)/,$(notdir $(INSTALL_INC))) \
	  $(D)$(PKGCONFIGDIR)/ftio.pc $(D)$(SYSTEMDUNITDIR)/ftiod.service \
	  $(D)$(SYSUSERSDIR)/ftio.conf $(D)$(SYSCONFDIR)/logrotate.d/ftiod \
	  $(D)$(MODULEFILEDIR)/ftio/$(VERSION)
	@$(LIB_LINKS); for l in $(INSTALL_LIB); do f=$$(basename $$l); \
	  echo "rm -f $(D)$(LIBDIR)/$$f $$(so_links $$l)"; \
	  for n in $$f $$(so_links $$l); do rm -f $(D)$(LIBDIR)/$$n; done; done
	@for m in $(INSTALL_MAN); do rm -f $(D)$(MANDIR)/man$${m##*.}/$$(basename $$m); done
	@for f in $(INSTALL_DOC); do rm -f $(D)$(DOCDIR)/$$f; done
ifneq ($(FTIOD_CONF),)
	@if cmp -s $(FTIOD_CONF) $(D)$(SYSCONFDIR)/ftio/ftiod.conf; then \
	  rm -f $(D)$(SYSCONFDIR)/ftio/ftiod.conf; \
	elif [ -e $(D)$(SYSCONFDIR)/ftio/ftiod.conf ]; then \
	  echo "uninstall: $(D)$(SYSCONFDIR)/ftio/ftiod.conf was changed: kept"; fi
endif
	@for d in $$(printf '%s\n' $(sort $(dir $(INSTALL_DOC))) | sort -r); do \
	  [ "$$d" = ./ ] || rmdir $(D)$(DOCDIR)/$$d 2>/dev/null; done; \
	rmdir $(D)$(DOCDIR) $(D)$(SYSCONFDIR)/ftio $(D)$(MODULEFILEDIR)/ftio 2>/dev/null; true

.PHONY: install uninstall

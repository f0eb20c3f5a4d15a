/* SPDX-License-Identifier: BSD-3-Clause */
/* next_sym.c -- the next definition of a wrapped symbol (what
 * dlsym(RTLD_NEXT, name) returns), found without the loader's lock.
 *
 * Every wrapper resolves its real_<name> at its first call (internal.h
 * ftio_real): a short process calls a dozen of the ~170 wrapped symbols,
 * and resolving all of them in the constructor was 70-150 us of its start
 * (bench/README.md "exit13").  dlsym cannot do it at a first call: it takes
 * the loader's lock, so a first call made while another thread loads a
 * library (the flusher's libzmq, an application's dlopen on a slow file
 * system) waits for that whole load (tests/shim/switch_races.sh: an `_exit`
 * waited 3 s).  So the constructor notes, once, the objects that follow
 * libftio.so in the program's load order -- the objects RTLD_NEXT searches,
 * in its order -- and their dynamic symbol tables; a lookup then reads those
 * tables as the loader would (ELF GNU hash: bloom filter, bucket, chain),
 * taking no lock, calling nothing, allocating nothing (also safe in a signal
 * handler).  A name it does not find (a symbol only in a library dlopen'ed
 * later, a compatibility-only version, an object without a GNU hash table)
 * goes to dlsym as before (core.c ftio_resolve).
 *
 * A symbol's default version is the one taken, as dlsym does: a versioned
 * definition whose version is hidden (an old `name@VERSION`) is skipped.  A
 * GNU indirect function is called for its implementation, as the loader
 * would.
 */
#include <stdint.h>
#include <string.h>
#include "elf_dyn.h"
#include "internal.h"

#define MAX_NEXT 32              /* objects after ours that are searched */

struct next_obj {
    ElfW(Addr)           base;
    const uint32_t      *gnu_hash;
    const ElfW(Sym)     *symtab;
    const char          *strtab;
    const ElfW(Versym)  *versym;   /* NULL: no versions */
};

static struct {
    struct next_obj obj[MAX_NEXT];
    int             n;
    _Atomic int     ready;        /* 1: obj[] is complete, lookups may use it */
} nx;

struct walk {
    int seen_self;                /* libftio.so passed: the next ones are ours */
    int complete;                 /* every object after ours was noted */
};

static int contains(const struct dl_phdr_info *info, uintptr_t addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr >= lo && addr < lo + ph->p_memsz)
            return 1;
    }
    return 0;
}

static int note_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct walk *w = arg;
    if (!w->seen_self) {
        w->seen_self = contains(info, (uintptr_t)&note_object);
        return 0;
    }
    const ElfW(Dyn) *dyn = ftio_object_dyn(info);
    /* The vDSO (named so by the kernel) defines only the clock calls, and
     * glibc's own pointers to them: nothing a wrapper forwards to. */
    if (!dyn || (info->dlpi_name && strncmp(info->dlpi_name, "linux-vdso", 10) == 0))
        return 0;
    uintptr_t base = info->dlpi_addr;
    struct next_obj o = {
        .base = base,
        .gnu_hash = ftio_dyn_ptr(dyn, DT_GNU_HASH, base),
        .symtab = ftio_dyn_ptr(dyn, DT_SYMTAB, base),
        .strtab = ftio_dyn_ptr(dyn, DT_STRTAB, base),
        .versym = ftio_dyn_ptr(dyn, DT_VERSYM, base),
    };
    if (!o.gnu_hash || !o.symtab || !o.strtab || nx.n == MAX_NEXT) {
        w->complete = 0;          /* an object we cannot search: dlsym for all */
        return 1;
    }
    nx.obj[nx.n++] = o;
    return 0;
}

void ftio_next_init(void)
{
    struct walk w = { 0, 1 };
    nx.n = 0;
    dl_iterate_phdr(note_object, &w);
    /* Not found (libftio.so loaded by dlopen, whose scope is not the load
     * order) or an object we could not read: dlsym alone, as before. */
    atomic_store_explicit(&nx.ready, w.seen_self && w.complete, memory_order_release);
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

static void *find_in(const struct next_obj *o, const char *name, uint32_t h)
{
    const uint32_t nbuckets = o->gnu_hash[0], symoffset = o->gnu_hash[1];
    const uint32_t bloom_size = o->gnu_hash[2], bloom_shift = o->gnu_hash[3];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)&o->gnu_hash[4];
    const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
    const uint32_t *chain = &buckets[nbuckets];
    const unsigned bits = sizeof(ElfW(Addr)) * 8;
    if (nbuckets == 0 || bloom_size == 0)
        return NULL;
    ElfW(Addr) word = bloom[(h / bits) % bloom_size];
    ElfW(Addr) mask = (ElfW(Addr))1 << (h % bits) | (ElfW(Addr))1 << ((h >> bloom_shift) % bits);
    if ((word & mask) != mask)
        return NULL;
    uint32_t i = buckets[h % nbuckets];
    if (i < symoffset)
        return NULL;
    for (;; i++) {
        uint32_t ch = chain[i - symoffset];
        if ((ch | 1) == (h | 1)) {
            const ElfW(Sym) *s = &o->symtab[i];
            unsigned type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info); /* (= ELF32_) */
            if (s->st_shndx != SHN_UNDEF && (bind == STB_GLOBAL || bind == STB_WEAK) &&
                (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT ||
                 type == STT_NOTYPE) &&
                !(o->versym && (o->versym[i] & 0x8000)) && strcmp(o->strtab + s->st_name, name) == 0) {
                void *p = (void *)(o->base + s->st_value);
                if (type == STT_GNU_IFUNC)
                    p = ((void *(*)(void))p)();
                return p;
            }
        }
        if (ch & 1)
            return NULL;
    }
}

void *ftio_next_lookup(const char *name)
{
    if (!atomic_load_explicit(&nx.ready, memory_order_acquire))
        return NULL;
    uint32_t h = gnu_hash(name);
    for (int i = 0; i < nx.n; i++) {
        void *p = find_in(&nx.obj[i], name, h);
        if (p)
            return p;
    }
    return NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* elf_dyn.h -- a loaded object's dynamic section, as dl_iterate_phdr shows
 * it: what libc_reads.c (the loader's reads, objects' names) and
 * next_sym.c (the next definition of a symbol) read of it. */
#ifndef FTIO_ELF_DYN_H
#define FTIO_ELF_DYN_H
#include <elf.h>
#include <stdint.h>
#include <system_link.h>   /* the system's <link.h>: dl_iterate_phdr, ElfW */

static inline const ElfW(Dyn) *ftio_object_dyn(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            return (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return NULL;
}

/* The address an address tag (DT_STRTAB, DT_SYMTAB, DT_GNU_HASH,
 * DT_VERSYM) holds in the object loaded at `addr`, NULL without it: glibc
 * relocates these in place on most targets; not on some, nor in the vDSO,
 * where the value is still relative to the object's base. */
static inline const void *ftio_dyn_ptr(const ElfW(Dyn) *dyn, ElfW(Sxword) tag, uintptr_t addr)
{
    for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == tag)
            return (const void *)(d->d_un.d_ptr < addr ? addr + d->d_un.d_ptr : d->d_un.d_ptr);
    return NULL;
}
#endif

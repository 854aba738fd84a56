/*
** abi.h: the layout of every struct a language binding mirrors.
** See Copyright Notice in README.md
*/
#ifndef DAB_ABI_H
#define DAB_ABI_H

#include <stddef.h>
#include "game/dabapi.h"

/*
** Bindings such as python/dab/_lib.py declare C structs by hand (ctypes).  A
** field added on one side only makes the library write past the
** binding's buffer.  These calls let a binding check, once at load, that
** its copy of each struct has the C field names, order, offsets and size.
**
** Mirrored structs: "dab_err", "dabtb_coverage", "dab_oracle_opts".
**
** dab_abi_sizeof(type)
**   RETURN: sizeof the struct, or -1 for a name not in the list.
** dab_abi_offsetof(type, field)
**   RETURN: the field's byte offset, or -1 for an unknown type or field.
** dab_abi_fieldsize(type, field)
**   RETURN: sizeof the field, or -1 for an unknown type or field.
** dab_abi_fields(type)
**   RETURN: the field names in declaration order, comma-separated
**   ("rows,cols,..."), or NULL for an unknown type.  Static storage.
**
** NOTES: thread-safe (constant tables).  A new field in a mirrored struct
** must be added to the table in abi.c: test_oracle fails when the table
** leaves more of a struct unaccounted for than alignment padding, and abi.c
** asserts each struct's size at compile time, so a size change stops the
** build until the table is looked at.  (A small field dropped into a
** struct's tail padding changes neither; the size assert's comment says
** to check.)
*/
DAB_API long dab_abi_sizeof(const char *type);
DAB_API long dab_abi_offsetof(const char *type, const char *field);
DAB_API long dab_abi_fieldsize(const char *type, const char *field);
DAB_API const char *dab_abi_fields(const char *type);

#endif

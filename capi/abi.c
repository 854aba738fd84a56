/*
** abi.c: the field tables behind abi.h, built with offsetof.
** See Copyright Notice in README.md
*/
#include "capi/abi.h"

#include <string.h>
#include "game/err.h"
#include "oracle/oracle.h"
#include "pdb/pdb.h"
#include "tablebase/dabtb.h"

typedef struct abi_field {
  const char *name;
  size_t offset, size;
} abi_field;

typedef struct abi_struct {
  const char *name;
  size_t size;
  const char *fields;       /* comma-separated, declaration order */
  const abi_field *field;
  int nfield;
} abi_struct;

#define FIELD(type, f) {#f, offsetof(type, f), sizeof(((type *)0)->f)}

static const abi_field err_fields[] = {FIELD(dab_err, msg)};

static const abi_field coverage_fields[] = {
    FIELD(dabtb_coverage, rows),      FIELD(dabtb_coverage, cols),
    FIELD(dabtb_coverage, nlines),    FIELD(dabtb_coverage, positions),
    FIELD(dabtb_coverage, indexed),   FIELD(dabtb_coverage, canonical),
    FIELD(dabtb_coverage, solved),    FIELD(dabtb_coverage, shapes),
    FIELD(dabtb_coverage, format_version),
};

static const abi_field oracle_opts_fields[] = {
    FIELD(dab_oracle_opts, tb_dir),      FIELD(dab_oracle_opts, max_build_free),
    FIELD(dab_oracle_opts, threads),     FIELD(dab_oracle_opts, search),
    FIELD(dab_oracle_opts, search_hash), FIELD(dab_oracle_opts, search_node_limit),
    FIELD(dab_oracle_opts, retro_free),  FIELD(dab_oracle_opts, only),
    FIELD(dab_oracle_opts, store),       FIELD(dab_oracle_opts, mem_limit),
    FIELD(dab_oracle_opts, checkpoint_seconds), FIELD(dab_oracle_opts, search_opts),
    FIELD(dab_oracle_opts, progress),    FIELD(dab_oracle_opts, progress_ctx),
    FIELD(dab_oracle_opts, warn),        FIELD(dab_oracle_opts, warn_ctx),
    FIELD(dab_oracle_opts, cancel),      FIELD(dab_oracle_opts, pdb),
    FIELD(dab_oracle_opts, read_only),
};

static const abi_field probe_comp_fields[] = {
    FIELD(dab_pdb_probe_comp, first_box), FIELD(dab_pdb_probe_comp, coins),
    FIELD(dab_pdb_probe_comp, strings),   FIELD(dab_pdb_probe_comp, id),
    FIELD(dab_pdb_probe_comp, nimber),    FIELD(dab_pdb_probe_comp, value),
    FIELD(dab_pdb_probe_comp, flags),
};

static const abi_field probe_result_fields[] = {
    FIELD(dab_pdb_probe_result, ncomp),   FIELD(dab_pdb_probe_result, comp),
    FIELD(dab_pdb_probe_result, covered), FIELD(dab_pdb_probe_result, nimber),
    FIELD(dab_pdb_probe_result, value),   FIELD(dab_pdb_probe_result, nodes),
};

/* A size change of a mirrored struct stops the build here: update the
** table above, python/dab/_lib.py and these numbers together (and check any
** new field that fits in the old tail padding, which keeps the size). */
_Static_assert(sizeof(dab_err) == DAB_ERR_LEN, "dab_err changed: update abi.c and python/dab/_lib.py");
_Static_assert(sizeof(dabtb_coverage) == 64, "dabtb_coverage changed: update abi.c and python/dab/_lib.py");
_Static_assert(sizeof(dab_oracle_opts) == 128, "dab_oracle_opts changed: update abi.c and python/dab/_lib.py");

#define NF(a) ((int)(sizeof a / sizeof a[0]))

/* The field-name strings are written out so that a binding gets them in
** one call; abi_check_tables (test_oracle) proves they match the arrays. */
static const abi_struct abi_structs[] = {
    {"dab_err", sizeof(dab_err), "msg", err_fields, NF(err_fields)},
    {"dabtb_coverage", sizeof(dabtb_coverage),
     "rows,cols,nlines,positions,indexed,canonical,solved,shapes,format_version", coverage_fields,
     NF(coverage_fields)},
    {"dab_oracle_opts", sizeof(dab_oracle_opts),
     "tb_dir,max_build_free,threads,search,search_hash,search_node_limit,retro_free,only,store,"
     "mem_limit,checkpoint_seconds,search_opts,progress,progress_ctx,warn,warn_ctx,cancel,pdb,read_only",
     oracle_opts_fields,
     NF(oracle_opts_fields)},
    {"dab_pdb_probe_comp", sizeof(dab_pdb_probe_comp), "first_box,coins,strings,id,nimber,value,flags",
     probe_comp_fields, NF(probe_comp_fields)},
    {"dab_pdb_probe_result", sizeof(dab_pdb_probe_result), "ncomp,comp,covered,nimber,value,nodes",
     probe_result_fields, NF(probe_result_fields)},
};

static const abi_struct *abi_find(const char *type) {
  if (!type) return NULL;
  for (size_t i = 0; i < sizeof abi_structs / sizeof abi_structs[0]; i++)
    if (!strcmp(abi_structs[i].name, type)) return &abi_structs[i];
  return NULL;
}

long dab_abi_sizeof(const char *type) {
  const abi_struct *s = abi_find(type);
  return s ? (long)s->size : -1;
}

static const abi_field *abi_field_find(const char *type, const char *field) {
  const abi_struct *s = abi_find(type);
  if (!s || !field) return NULL;
  for (int i = 0; i < s->nfield; i++)
    if (!strcmp(s->field[i].name, field)) return &s->field[i];
  return NULL;
}

long dab_abi_offsetof(const char *type, const char *field) {
  const abi_field *f = abi_field_find(type, field);
  return f ? (long)f->offset : -1;
}

long dab_abi_fieldsize(const char *type, const char *field) {
  const abi_field *f = abi_field_find(type, field);
  return f ? (long)f->size : -1;
}

const char *dab_abi_fields(const char *type) {
  const abi_struct *s = abi_find(type);
  return s ? s->fields : NULL;
}

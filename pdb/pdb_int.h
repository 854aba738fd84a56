/*
** pdb_int.h: the pattern database's in-memory layout, shared by its
** modules (pdb_core.c, pdb_enum.c, pdb_sum.c, pdb_file.c).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_PDB_INT_H
#define DAB_PDB_INT_H

#include "pdb/pdb.h"

/* One component class.  Its encoding is enc[enc_at .. enc_at + coins),
** its moves are packed in mv[] from mv_at: per move one header word
** (MV_* fields) and then its children's ids. */
typedef struct pdb_class {
  uint32_t enc_at, mv_at;
  uint8_t coins, strings, nmoves, flags;
  int8_t nimber, value;
  int8_t safe_move;          /* a capture that hands nothing over (-1: none) */
  int8_t decline_move;       /* the one decline (-1: no capturable coin that needs one) */
} pdb_class;

/* Move header word: captured (2 bits), children (5), sacrifice (1: a
** child has a capturable coin), cut (10: canonical edge), redundant (1:
** the chain rules prove another move of its run as good), loony bound
** (8: the move is worth at most this, stored + 128; 255 = none). */
#define MV_CAPTURED(w) ((w) & 3u)
#define MV_NCHILD(w) (((w) >> 2) & 31u)
#define MV_SACRIFICE(w) (((w) >> 7) & 1u)
#define MV_CUT(w) (((w) >> 8) & 1023u)
#define MV_REDUNDANT(w) (((w) >> 18) & 1u)
#define MV_LOONY(w) ((int)(((w) >> 19) & 255u) - 128)
#define MV_NO_LOONY 127
#define MV_HEADER(cap, nch, sac, cut, red, loony)                                                 \
  ((uint32_t)(cap) | (uint32_t)(nch) << 2 | (uint32_t)(sac) << 7 | (uint32_t)(cut) << 8 |       \
   (uint32_t)(red) << 18 | (uint32_t)((loony) + 128) << 19)

struct dab_pdb {
  int max_strings;
  pdb_class *cls;
  uint32_t n, cap;
  uint32_t *enc;             /* encodings, one word per coin */
  size_t enc_n, enc_cap;
  uint32_t *mv;              /* moves */
  size_t mv_n, mv_cap;
  uint32_t *slot;            /* open addressing by encoding hash: id + 1, 0 = empty */
  uint64_t nslots;
};

/* Hash of an encoding (also the file's record order). */
uint64_t pdb_enc_hash(const uint32_t *enc, int coins);

/*
** The id of the component enc[0..coins) (already canonical), adding it
** with its moves and facts when db lacks it (its children first, the same
** way).  RETURN: the id, or minus the failure's dab_status (err says
** what): -DAB_ENOMEM, -DAB_EINTERNAL.
*/
int64_t pdb_ensure(dab_pdb *db, const uint32_t *enc, int coins, dab_pdb_table **table, dab_err *err);

/* Appends a class without moves or facts (the file loader).  RETURN: its
** id or -1 (out of memory). */
int64_t pdb_add_class(dab_pdb *db, const uint32_t *enc, int coins);

/* The value alone of class id from its moves' children (every move, full
** window): how a new class's value is made, before it is stored. */
int pdb_value_by_moves(const dab_pdb *db, dab_pdb_table *t, uint32_t id);

/* Grows the move pool to hold `more` words.  RETURN: false on ENOMEM. */
bool pdb_reserve_moves(dab_pdb *db, size_t more);

/* The first move word of class id. */
static inline const uint32_t *pdb_moves(const dab_pdb *db, uint32_t id) { return db->mv + db->cls[id].mv_at; }

/* Next move after the one at w. */
static inline const uint32_t *pdb_next_move(const uint32_t *w) { return w + 1 + MV_NCHILD(*w); }

#endif

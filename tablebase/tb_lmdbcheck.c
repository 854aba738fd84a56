/*
** tb_lmdbcheck.c: a structural check of an LMDB file's B-tree pages before
** LMDB reads them, so a damaged tablebase is refused instead of crashing.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "game/sysmem.h"
#include "tablebase/tb_internal.h"

/*
** LMDB (0.9.x, 64-bit) trusts its pages: a flipped node offset or page
** number makes it read outside the map.  The tablebase is read-only and
** small in B-tree pages (the values sit in overflow pages), so at open we
** walk every branch and leaf page of the main DB and of each named DB and
** check every offset, size and page number against the page and the file:
**
**   page:  +---------+-----+-------+-------+-------+----------------+
**          | pgno u64| pad | flags | lower | upper | ptrs[] ...nodes|
**          +---------+-----+-------+-------+-------+----------------+
**           0         8     10      12      14      16
**   node:  lo u16, hi u16, flags u16, ksize u16, key, data
**          branch: child pgno = lo | hi << 16 | flags << 32
**          leaf:   data size = lo | hi << 16; F_BIGDATA: data = overflow pgno
**   meta (pages 0, 1, after the header): magic, version, address, mapsize,
**          dbs[2] (48 bytes each: pad, flags, depth, branch, leaf,
**          overflow, entries, root), last_pg, txnid
**
** Overflow pages are only checked to lie inside the file and carry their
** own number: their contents are the block records, which have checksums.
*/

enum { P_BRANCH = 0x01, P_LEAF = 0x02, P_OVERFLOW = 0x04 };
enum { F_BIGDATA = 0x01, F_SUBDATA = 0x02, F_DUPDATA = 0x04 };
#define PAGEHDR 16
#define NODEHDR 8
#define DB_SIZE 48
#define META_MAGIC 0xBEEFC0DEu
#define P_INVALID (~(uint64_t)0)

typedef struct walk {
  const uint8_t *map;
  uint64_t psize, last;
  uint8_t *seen;      /* one bit per page: no page is visited twice */
  int ndb;            /* named databases found */
} walk;

static uint16_t u16at(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint64_t u64at(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static bool mark(walk *w, uint64_t pg) {
  if (pg > w->last || pg < 2) return false;
  if (w->seen[pg >> 3] & (1u << (pg & 7))) return false;
  w->seen[pg >> 3] |= (uint8_t)(1u << (pg & 7));
  return true;
}

static bool check_tree(walk *w, uint64_t pg, int depth, bool main_db);

static bool check_page(walk *w, uint64_t pg, int depth, bool main_db) {
  if (depth > 16 || !mark(w, pg)) return false;
  const uint8_t *p = w->map + pg * w->psize;
  uint16_t flags = u16at(p + 10), lower = u16at(p + 12), upper = u16at(p + 14);
  if (u64at(p) != pg) return false;
  bool branch = flags == P_BRANCH, leaf = flags == P_LEAF;
  if (!branch && !leaf) return false;
  if (lower < PAGEHDR || lower > upper || upper > w->psize || (lower - PAGEHDR) % 2) return false;
  int n = (lower - PAGEHDR) / 2;
  if (n == 0) return false;
  for (int i = 0; i < n; i++) {
    uint16_t off = u16at(p + PAGEHDR + 2 * i);
    if (off < upper || off % 2 || (uint64_t)off + NODEHDR > w->psize) return false;
    const uint8_t *nd = p + off;
    uint16_t lo = u16at(nd), hi = u16at(nd + 2), nf = u16at(nd + 4), ks = u16at(nd + 6);
    uint64_t kend = (uint64_t)off + NODEHDR + ks;
    if (kend > w->psize) return false;
    if (branch) {
      uint64_t child = (uint64_t)lo | (uint64_t)hi << 16 | (uint64_t)nf << 32;
      if (!check_tree(w, child, depth + 1, main_db)) return false;
      continue;
    }
    uint64_t dsize = (uint64_t)lo | (uint64_t)hi << 16;
    if (nf & F_DUPDATA) return false;
    if (nf & F_BIGDATA) {
      if ((nf & F_SUBDATA) || kend + 8 > w->psize) return false;
      uint64_t op = u64at(p + kend);
      if (op < 2 || op > w->last) return false;
      const uint8_t *o = w->map + op * w->psize;
      uint32_t pages;
      memcpy(&pages, o + 12, 4);
      if (u64at(o) != op || u16at(o + 10) != P_OVERFLOW || pages == 0 || op + pages - 1 > w->last ||
          dsize + PAGEHDR > (uint64_t)pages * w->psize)
        return false;
      continue;
    }
    if (kend + dsize > w->psize) return false;
    if (nf & F_SUBDATA) {
      if (!main_db || dsize != DB_SIZE) return false;
      uint64_t root = u64at(p + kend + 40);
      w->ndb++;
      if (root != P_INVALID && !check_tree(w, root, 0, false)) return false;
    }
  }
  return true;
}

static bool check_tree(walk *w, uint64_t pg, int depth, bool main_db) {
  return check_page(w, pg, depth, main_db);
}

static dab_status check_map(walk *w, const char *path, dab_err *err);

static dab_status structure_once(MDB_env *env, uint64_t file_size, const char *path, dab_err *err);

/* A writer of the solved store may commit during the walk (a newer meta
** page pointing past the pages mapped): then the walk is redone. */
dab_status dabtb_lmdb_structure(MDB_env *env, uint64_t file_size, const char *path, dab_err *err) {
  for (int attempt = 0;; attempt++) {
    MDB_envinfo before, after;
    mdb_env_info(env, &before);
    dab_status st = structure_once(env, file_size, path, err);
    mdb_env_info(env, &after);
    if (st == DAB_OK || after.me_last_txnid == before.me_last_txnid || attempt == 4) return st;
  }
}

static dab_status structure_once(MDB_env *env, uint64_t file_size, const char *path, dab_err *err) {
  MDB_envinfo info;
  MDB_stat st;
  if (mdb_env_info(env, &info) || mdb_env_stat(env, &st))
    return dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (LMDB info)", path);
  walk w = {NULL, st.ms_psize, info.me_last_pgno, NULL, 0};
  /* The size is read after the meta page: a writer writes its pages
  ** before the meta page that names them, so a commit since the caller's
  ** stat has made the file longer, not the check wrong. */
  struct stat sb;
  if (stat(path, &sb) == 0 && (uint64_t)sb.st_size > file_size) file_size = (uint64_t)sb.st_size;
  /* Two meta pages at least, and last < size / psize: the product
  ** (last + 1) * psize of a damaged last_pgno can wrap to a small size. */
  if (w.psize < 512 || w.last < 1 || w.last >= file_size / w.psize)
    return dab_fail(err, DAB_ECORRUPT, "%s: truncated or damaged (page size %llu)", path,
                    (unsigned long long)w.psize);
  /* Our own read-only view of the file (LMDB does not expose its map). */
  int fd = open(path, O_RDONLY);
  if (fd < 0) return dab_fail(err, DAB_EINPUT, "%s: cannot open", path);
  size_t len = (size_t)((w.last + 1) * w.psize);
  void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return dab_fail(err, DAB_EIO, "%s: cannot map", path);
  dab_mapped(map, len);
  w.map = map;
  dab_status rc = check_map(&w, path, err);
  munmap(map, len);
  return rc;
}

static dab_status check_map(walk *w0, const char *path, dab_err *err) {
  walk w = *w0;
  /* The meta page LMDB uses: the one with the larger txnid (page 0 on ties). */
  const uint8_t *m0 = w.map + PAGEHDR, *m1 = w.map + w.psize + PAGEHDR;
  const int txn_off = 4 + 4 + 8 + 8 + 2 * DB_SIZE + 8;
  const uint8_t *m = u64at(m1 + txn_off) > u64at(m0 + txn_off) ? m1 : m0;
  uint32_t magic;
  memcpy(&magic, m, 4);
  if (magic != META_MAGIC) return dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (meta page)", path);
  uint64_t root = u64at(m + 4 + 4 + 8 + 8 + DB_SIZE + 40);
  w.seen = calloc((size_t)(w.last / 8 + 1), 1);
  if (!w.seen) return dab_fail(err, DAB_ENOMEM, "out of memory");
  bool ok = root != P_INVALID && check_tree(&w, root, 0, true);
  free(w.seen);
  if (!ok) return dab_fail(err, DAB_ECORRUPT, "%s: damaged: its LMDB page structure is invalid", path);
  return DAB_OK;
}

dab_status dabtb_lmdb_meta(const char *path, uint64_t file_size, dab_err *err) {
  enum { P_META = 0x08, META_VERSION = 1, MIN_PAGE = 512, MAX_PAGE = 65536 };
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return dab_fail(err, DAB_EIO, "%s: cannot open", path);
  uint64_t off = 0, psize = 0;
  dab_status st = DAB_OK;
  /* A bad first meta page says "not a tablebase" (EINPUT); once it is
  ** good, the file is an LMDB file whose damage is corruption (ECORRUPT),
  ** however it came about: cut short, or bytes changed. */
  for (int i = 0; i < 2 && !st; i++) {
    uint8_t pg[PAGEHDR + 48];
    if (off + sizeof pg > file_size || pread(fd, pg, sizeof pg, (off_t)off) != (ssize_t)sizeof pg) {
      st = i ? dab_fail(err, DAB_ECORRUPT, "%s: truncated (%llu bytes: no second LMDB meta page)", path,
                        (unsigned long long)file_size)
             : dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (%llu bytes: no LMDB meta page)", path,
                        (unsigned long long)file_size);
      break;
    }
    uint16_t flags;
    uint32_t magic, version, ps;
    memcpy(&flags, pg + 10, 2);
    memcpy(&magic, pg + PAGEHDR, 4);
    memcpy(&version, pg + PAGEHDR + 4, 4);
    memcpy(&ps, pg + PAGEHDR + 24, 4); /* dbs[FREE].pad holds the page size */
    if (!(flags & P_META) || magic != META_MAGIC || version != META_VERSION || ps < MIN_PAGE || ps > MAX_PAGE ||
        (ps & (ps - 1)))
      st = i ? dab_fail(err, DAB_ECORRUPT, "%s: damaged (LMDB meta page 1 invalid)", path)
             : dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (LMDB meta page 0 invalid)", path);
    if (!i) psize = off = ps;
    else if (!st && ps != psize)
      st = dab_fail(err, DAB_ECORRUPT, "%s: damaged (LMDB meta pages disagree)", path);
  }
  close(fd);
  return st;
}

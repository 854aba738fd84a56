/*
** fuzz_rules.c: libFuzzer harness of rule files and rule texts
** (agents/rule.h, agents/ruleteam.h).  Input byte 0 picks the mode:
**   0: the rest is a rule file, read as it is (the checksum guards it);
**   1: the rest is a rule file body; the harness appends its right
**      checksum line, so the parser behind the checksum sees every byte;
**   2: the rest is one rule text (dab_rule_parse, graph_only from byte 1).
** Properties: a refused file or text gives a one-line message and nothing
** else; a read file writes back and reads again to the same rules; a parsed
** rule prints to a text that parses and prints the same.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <xxhash.h>
#include "agents/ruleteam.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void file_mode(const uint8_t *data, size_t size, bool fix) {
  uint8_t *buf = malloc(size + 32);
  if (!buf) abort();
  memcpy(buf, data, size);
  size_t len = size;
  if (fix) {
    if (len && buf[len - 1] != '\n') buf[len++] = '\n';
    char cs[32];
    snprintf(cs, sizeof cs, "xxh3 %016" PRIx64 "\n", (uint64_t)XXH3_64bits(buf, len));
    memcpy(buf + len, cs, strlen(cs));
    len += strlen(cs);
  }
  const char *path = fz_file("rules", buf, len);
  free(buf);
  dab_model_header h;
  dab_ragent *a = (dab_ragent *)1;
  int n = -1;
  dab_err err;
  dab_status st = dab_rules_read(path, NULL, &h, &a, &n, &err);
  if (st) {
    FZ_ASSERT(a == NULL && n == 0, "refused file left agents");
    FZ_ASSERT(!strchr(err.msg, '\n') && strstr(err.msg, path), "message: '%s'", err.msg);
    unlink(path);
    return;
  }
  FZ_ASSERT(n >= 0, "count %d", n);
  /* Write back, read again: the same rules. */
  char back[300];
  snprintf(back, sizeof back, "%s.back", path);
  st = dab_rules_write(back, h.rows, h.cols, h.kind, h.params, a, n, &err);
  FZ_ASSERT(!st, "a file that reads does not write back: %s", err.msg);
  dab_model_header h2;
  dab_ragent *b = NULL;
  int n2 = 0;
  st = dab_rules_read(back, NULL, &h2, &b, &n2, &err);
  FZ_ASSERT(!st && n2 == n, "written file does not read back: %s", st ? err.msg : "count");
  for (int i = 0; i < n; i++) {
    char t1[4096], t2[4096];
    FZ_ASSERT(dab_rule_print(&a[i].rule, t1, sizeof t1) >= 0 && dab_rule_print(&b[i].rule, t2, sizeof t2) >= 0,
              "print");
    FZ_ASSERT(!strcmp(t1, t2), "rule %d changed: '%s' -> '%s'", i, t1, t2);
  }
  free(a);
  free(b);
  unlink(back);
  unlink(path);
}

static void text_mode(const uint8_t *data, size_t size) {
  if (size < 1) return;
  bool graph_only = data[0] & 1;
  char *text = fz_string(data + 1, size - 1);
  static dab_rule r, q;
  dab_err err;
  dab_status st = dab_rule_parse(text, graph_only, &r, &err);
  free(text);
  if (st) {
    FZ_ASSERT(st == DAB_EINPUT && !strchr(err.msg, '\n') && err.msg[0], "status %d '%s'", st, err.msg);
    return;
  }
  char t1[8192], t2[8192];
  FZ_ASSERT(dab_rule_print(&r, t1, sizeof t1) >= 0, "print");
  st = dab_rule_parse(t1, graph_only, &q, &err);
  FZ_ASSERT(!st, "printed rule '%s' does not parse: %s", t1, err.msg);
  FZ_ASSERT(dab_rule_print(&q, t2, sizeof t2) >= 0 && !strcmp(t1, t2), "'%s' reprints as '%s'", t1, t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > (1 << 16)) return 0;
  switch (data[0] % 3) {
  case 0: file_mode(data + 1, size - 1, false); break;
  case 1: file_mode(data + 1, size - 1, true); break;
  default: text_mode(data + 1, size - 1); break;
  }
  return 0;
}

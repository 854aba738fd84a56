# t95.sh: the 95% t-interval shared by the bench scripts that summarise
# runs over seeds; sourced, it sets T95_AWK, an awk function to put in
# front of a program's text:  awk "$T95_AWK"'{ ... half95(ss, n) ... }'
# half95(ss, n): the half-width of the 95% interval of the mean of n
# values whose squared deviations from their mean sum to ss (Student's t,
# 97.5% quantile, 1..10 degrees of freedom, 10 beyond; 0 for n < 2).
# mean_of(x, n), half95_of(x, n): the mean of x[1..n] and its half-width.
# t95_append: see below.
T95_AWK='
function half95(ss, n,   t) {
  if (n < 2) return 0
  split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ")
  return t[n - 1 > 10 ? 10 : n - 1] * sqrt(ss / (n - 1) / n)
}
function mean_of(x, n,   i, s) {
  for (i = 1; i <= n; i++) s += x[i]
  return n ? s / n : 0
}
function half95_of(x, n,   i, m, ss) {
  m = mean_of(x, n)
  for (i = 1; i <= n; i++) ss += (x[i] - m) ^ 2
  return half95(ss, n)
}
'
# t95_append CSV FIRST LAST: appends to CSV (a header, then rows whose
# column 1 names a group) a "GROUP,mean,N,..." and a "GROUP,half95,N,..."
# row per group of 2 rows or more, over columns FIRST..LAST, in the order
# the groups first appear.
t95_append() {
  awk -F, -v c0="$2" -v c1="$3" "$T95_AWK"'
    NR > 1 { k = $1; if (!(k in n)) order[++no] = k; n[k]++; for (c = c0; c <= c1; c++) v[k, c, n[k]] = $c }
    END {
      for (i = 1; i <= no; i++) {
        k = order[i]; if (n[k] < 2) continue
        m = ""; h = ""
        for (c = c0; c <= c1; c++) {
          for (j = 1; j <= n[k]; j++) x[j] = v[k, c, j]
          m = m sprintf(",%.4f", mean_of(x, n[k])); h = h sprintf(",%.4f", half95_of(x, n[k]))
        }
        print k ",mean," n[k] m; print k ",half95," n[k] h
      }
    }' "$1" >"$1.tmp" && cat "$1.tmp" >>"$1" && rm -f "$1.tmp"
}

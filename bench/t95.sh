# t95.sh: the 95% t-interval shared by the bench scripts that summarise
# runs over seeds; sourced, it sets T95_AWK, an awk function to put in
# front of a program's text:  awk "$T95_AWK"'{ ... half95(ss, n) ... }'
# half95(ss, n): the half-width of the 95% interval of the mean of n
# values whose squared deviations from their mean sum to ss (Student's t,
# 97.5% quantile, 1..10 degrees of freedom, 10 beyond; 0 for n < 2).
# mean_of(x, n), half95_of(x, n): the mean of x[1..n] and its half-width.
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

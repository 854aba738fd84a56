/*
** solveproof.h: `dab solve POS --proof DIR`, the divisible-proof mode of
** dab solve (cmd_solve.c hands over when --proof is given).
** See Copyright Notice in README.md
*/
#ifndef DAB_SOLVEPROOF_H
#define DAB_SOLVEPROOF_H

/* Runs, resumes, lists or verifies the proof; argv as for dab_cmd_solve.
** RETURN: the process exit code (0 ok / proved, 1 failure / not proved,
** 2 bad input). */
int dab_solve_proof(int argc, char **argv);

#endif

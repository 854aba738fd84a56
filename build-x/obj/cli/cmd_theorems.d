build-x/obj/cli/cmd_theorems.o: cli/cmd_theorems.c cli/cliutil.h \
 game/postext.h game/board.h game/dabconf.h game/err.h game/progress.h \
 solver/analysis.h game/board.h cli/commands.h game/sc.h solver/retro.h \
 game/progress.h theorems/compsolve.h game/err.h theorems/sle.h \
 game/board.h verify/thm_check.h
cli/cliutil.h:
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
game/board.h:
cli/commands.h:
game/sc.h:
solver/retro.h:
game/progress.h:
theorems/compsolve.h:
game/err.h:
theorems/sle.h:
game/board.h:
verify/thm_check.h:

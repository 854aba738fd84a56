build-x/obj/cli/cmd_solve.o: cli/cmd_solve.c cli/cliutil.h game/postext.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 game/board.h cli/commands.h oracle/oracle.h solver/ab.h game/progress.h \
 solver/tt.h game/err.h symmetry/sym.h solver/retro.h
cli/cliutil.h:
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
game/board.h:
cli/commands.h:
oracle/oracle.h:
solver/ab.h:
game/progress.h:
solver/tt.h:
game/err.h:
symmetry/sym.h:
solver/retro.h:

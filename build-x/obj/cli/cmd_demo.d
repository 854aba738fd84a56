build-x/obj/cli/cmd_demo.o: cli/cmd_demo.c cli/cliutil.h game/postext.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 game/board.h cli/commands.h oracle/oracle.h
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

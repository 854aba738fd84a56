build-x/obj/cli/cliutil.o: cli/cliutil.c cli/cliutil.h game/postext.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 game/board.h
cli/cliutil.h:
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
game/board.h:

build-x/obj/cli/cmd_show.o: cli/cmd_show.c cli/cliutil.h game/postext.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 game/board.h cli/commands.h game/sc.h
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

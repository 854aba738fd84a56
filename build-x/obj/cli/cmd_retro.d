build-x/obj/cli/cmd_retro.o: cli/cmd_retro.c cli/cliutil.h game/postext.h \
 game/board.h game/dabconf.h game/err.h game/progress.h solver/analysis.h \
 game/board.h cli/commands.h solver/retro.h game/progress.h
cli/cliutil.h:
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:
game/board.h:
cli/commands.h:
solver/retro.h:
game/progress.h:

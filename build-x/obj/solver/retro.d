build-x/obj/solver/retro.o: solver/retro.c solver/retro.h game/board.h \
 game/dabconf.h game/err.h game/progress.h solver/analysis.h
solver/retro.h:
game/board.h:
game/dabconf.h:
game/err.h:
game/progress.h:
solver/analysis.h:

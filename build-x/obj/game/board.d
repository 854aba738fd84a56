build-x/obj/game/board.o: game/board.c game/board.h game/dabconf.h \
 game/err.h
game/board.h:
game/dabconf.h:
game/err.h:

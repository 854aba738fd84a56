build-x/obj/game/sc.o: game/sc.c game/sc.h game/board.h game/dabconf.h \
 game/err.h
game/sc.h:
game/board.h:
game/dabconf.h:
game/err.h:

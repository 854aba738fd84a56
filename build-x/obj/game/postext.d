build-x/obj/game/postext.o: game/postext.c game/postext.h game/board.h \
 game/dabconf.h game/err.h
game/postext.h:
game/board.h:
game/dabconf.h:
game/err.h:

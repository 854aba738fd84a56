build-x/obj/game/err.o: game/err.c game/err.h game/dabconf.h
game/err.h:
game/dabconf.h:

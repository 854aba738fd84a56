build-x/obj/symmetry/sym.o: symmetry/sym.c symmetry/sym.h game/board.h \
 game/dabconf.h game/err.h
symmetry/sym.h:
game/board.h:
game/dabconf.h:
game/err.h:

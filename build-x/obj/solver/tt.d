build-x/obj/solver/tt.o: solver/tt.c solver/tt.h game/err.h \
 game/dabconf.h
solver/tt.h:
game/err.h:
game/dabconf.h:

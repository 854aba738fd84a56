build-x/obj/verify/thm_check.o: verify/thm_check.c verify/thm_check.h \
 game/err.h game/dabconf.h game/progress.h
verify/thm_check.h:
game/err.h:
game/dabconf.h:
game/progress.h:

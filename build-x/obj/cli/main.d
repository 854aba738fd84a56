build-x/obj/cli/main.o: cli/main.c cli/commands.h
cli/commands.h:

// gpucalc's entry point. The program is gpucalc::program_main (src/cli/main.cc), which is
// compiled with the other files that use CLI11, as one unit (CMakeLists.txt): CLI11 is compiled
// once for the whole program, not again here.
#include "commands/commands.h"

int main(int argc, char** argv) { return gpucalc::program_main(argc, argv); }

// Every probe of the suite now has its adapter (steps_<probe>.cpp). A future probe starts here with a stub
// returning nullptr (its step is then `skipped`: "the <probe> probe is not built into this version").
#include "steps.hpp"

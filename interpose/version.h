#ifndef LS_VERSION
#define LS_VERSION "0.3.0"
#endif

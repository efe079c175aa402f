#ifndef LS_VERSION
#define LS_VERSION "0.4.0"
#endif

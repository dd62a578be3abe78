#ifndef FILEDROP_CQRENCODE_SHIM_H
#define FILEDROP_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif

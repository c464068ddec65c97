// The public header of the property suite: include this, link peverify::properties, and run the
// whole suite on your own implementation (see examples/own_kernel).
#pragma once

#include "encoding/claim.h"                  // IWYU pragma: export
#include "properties/checks.h"               // IWYU pragma: export
#include "properties/consistent.h"           // IWYU pragma: export
#include "properties/rotation_properties.h"  // IWYU pragma: export
#include "properties/suite.h"                // IWYU pragma: export
#include "properties/under_test.h"           // IWYU pragma: export

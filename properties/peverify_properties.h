// The public header of the property suite: include this, link peverify::properties, and run the
// whole suite on your own implementation (see examples/own_kernel).
#pragma once

#include "peverify/encoding/claim.h"                  // IWYU pragma: export
#include "peverify/properties/checks.h"               // IWYU pragma: export
#include "peverify/properties/consistent.h"           // IWYU pragma: export
#include "peverify/properties/rotation_properties.h"  // IWYU pragma: export
#include "peverify/properties/suite.h"                // IWYU pragma: export
#include "peverify/properties/under_test.h"           // IWYU pragma: export

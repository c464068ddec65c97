// Text for HTML and XML: the report's page and the gate's JUnit file escape the same way.
#pragma once

#include <string>
#include <string_view>

namespace pev {

// <, >, & and " as entities.
std::string html_escape(std::string_view s);

}  // namespace pev

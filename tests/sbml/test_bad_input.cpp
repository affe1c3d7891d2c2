// Bad input: a clear ImportError, nothing integrated, no crash.
#include <boost/test/unit_test.hpp>

#include "esdirk/sbml/sbml.hpp"

namespace sb = esdirk::sbml;

BOOST_AUTO_TEST_SUITE(sbml_bad_input)

BOOST_AUTO_TEST_CASE(malformed_xml_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load_string("<sbml><model id='m'></sbml"), sb::ImportError);
}

BOOST_AUTO_TEST_CASE(a_document_that_is_not_sbml_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load_string("<?xml version='1.0'?><html><body/></html>"), sb::ImportError);
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_import_error) {
  BOOST_CHECK_THROW(sb::load("no-such-file.xml"), sb::ImportError);
}

BOOST_AUTO_TEST_SUITE_END()

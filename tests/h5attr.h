/* h5attr.h — a string attribute written through the HDF5 API itself (variable-length UTF-8),
 * for the tests that make a results file by hand: one of an older logt's layout, say. */
#ifndef LOGT_TEST_H5ATTR_H
#define LOGT_TEST_H5ATTR_H

#include <criterion/criterion.h>
#include <hdf5.h>

static inline void h5_str_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(a, 0);
    cr_assert_geq(H5Awrite(a, t, &value), 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

#endif

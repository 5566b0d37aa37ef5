// Package cxx reads the GPU kernel's C++ (HIP) sources and makes mutants
// of their device code. (Documented in full below; see the package doc.)
package cxx

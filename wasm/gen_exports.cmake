# Writes the module's export list (-sEXPORTED_FUNCTIONS=@file, one symbol a line): every CVM*
# function declared CVM_DLL in the C ABI header, plus malloc and free for the JS side.
#   cmake -DHEADER=core/include/cvm/c_api.h -DOUT=exports.txt -P gen_exports.cmake
file(READ "${HEADER}" text)
# Comments may mention CVM names: drop /* ... */ and // ... first.
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
string(REGEX REPLACE "//[^\n]*" "" text "${text}")
string(REGEX MATCHALL "CVM_DLL[^;(]*[ \t\n*](CVM[A-Za-z0-9_]*)[ \t\n]*\\(" decls "${text}")
set(names)
foreach(decl IN LISTS decls)
  string(REGEX REPLACE ".*[ \t\n*](CVM[A-Za-z0-9_]*)[ \t\n]*\\($" "\\1" name "${decl}")
  list(APPEND names "_${name}")
endforeach()
list(LENGTH names count)
if(count LESS 10)
  message(FATAL_ERROR "${HEADER}: found only ${count} CVM_DLL functions: ${names}")
endif()
list(REMOVE_DUPLICATES names)
list(APPEND names _malloc _free)
list(JOIN names "\n" body)
# Rewrite only on change, so an unrelated header edit does not relink the module.
set(new "${body}\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL new)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${new}")

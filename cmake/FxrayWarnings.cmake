# Warning flags for fxray's own targets (not applied to third-party code).
function(fxray_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
      -Wnon-virtual-dtor -Wno-missing-field-initializers)
    if(FXRAY_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()

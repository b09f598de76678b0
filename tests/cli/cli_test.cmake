# The cvmrt command-line scenarios (tests/cli/CMakeLists.txt runs one per ctest entry):
#   cmake -DCLI=<cvmrt> -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch> -DSCENARIO=<name> -P cli_test.cmake
# A scenario fails with FATAL_ERROR, showing the command, its exit status and its output.
cmake_minimum_required(VERSION 3.25)

foreach(var CLI SOURCE_DIR WORK_DIR SCENARIO)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "cli_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(M "${SOURCE_DIR}/examples/models")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(READ "${M}/expected.json" EXPECTED)

# cvm(<expected exit status> <args>...): runs the tool; sets OUT, ERR and RC in the caller.
function(cvm expected_rc)
  execute_process(COMMAND "${CLI}" ${ARGN}
                  WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${ARGN}")
  if(NOT "${rc}" STREQUAL "${expected_rc}")
    message(FATAL_ERROR "cvmrt ${shown}\nexit status ${rc}, expected ${expected_rc}\n"
                        "--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
  set(ERR "${err}" PARENT_SCOPE)
  set(LAST "cvmrt ${shown}" PARENT_SCOPE)
endfunction()

# expect_match(<text> <regex> <what>): FATAL_ERROR unless <regex> matches <text>.
# The first group of the match is left in MATCH1.
function(expect_match text regex what)
  if(NOT "${text}" MATCHES "${regex}")
    message(FATAL_ERROR "${LAST}: ${what}: no match for /${regex}/ in:\n${text}")
  endif()
  set(MATCH1 "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

function(expect_equal a b what)
  if(NOT "${a}" STREQUAL "${b}")
    message(FATAL_ERROR "${LAST}: ${what}: \"${a}\" differs from \"${b}\"")
  endif()
endfunction()

function(expect_same_file a b)
  file(SHA256 "${a}" ha)
  file(SHA256 "${b}" hb)
  expect_equal("${ha}" "${hb}" "${a} and ${b} differ")
endfunction()

# The "cost:" line of a run summary, and the total of an inspect report without commas.
function(cost_line text out_var)
  if(NOT "${text}" MATCHES "cost: +([^\n]*)")
    message(FATAL_ERROR "${LAST}: no cost line in:\n${text}")
  endif()
  set(${out_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

function(inspect_total text out_var)
  if(NOT "${text}" MATCHES "total ([0-9,]+)")
    message(FATAL_ERROR "${LAST}: no total in:\n${text}")
  endif()
  string(REPLACE "," "" total "${CMAKE_MATCH_1}")
  set(${out_var} "${total}" PARENT_SCOPE)
endfunction()

# The tool's environment settings come from each scenario, never from the caller's shell.
foreach(var CVMRT_ISA CVMRT_THREADS CVMRT_BACKEND)
  unset(ENV{${var}})
endforeach()

set(LENET_JSON "${M}/lenet.json")
set(LENET_PARAMS "${M}/lenet.params")
set(LENET_INPUT "data=${M}/lenet_input.npy")

if(SCENARIO STREQUAL "convert_and_run")
  cvm(0 convert "${LENET_JSON}" "${LENET_PARAMS}" -o lenet.cvmrt --name LeNet
      --description "int8 LeNet example" --labels "${M}/lenet_labels.txt")
  expect_match("${OUT}" "wrote lenet.cvmrt .*10 labels" "convert summary")
  if(NOT EXISTS "${WORK_DIR}/lenet.cvmrt")
    message(FATAL_ERROR "convert wrote no lenet.cvmrt")
  endif()
  # converting twice gives the same bytes
  cvm(0 convert "${LENET_JSON}" "${LENET_PARAMS}" -o lenet2.cvmrt --name LeNet
      --description "int8 LeNet example" --labels "${M}/lenet_labels.txt")
  expect_same_file("${WORK_DIR}/lenet.cvmrt" "${WORK_DIR}/lenet2.cvmrt")

  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" -o from_json.npy)
  cost_line("${OUT}" json_cost)
  set(json_summary "${OUT}")
  cvm(0 run lenet.cvmrt --input "${LENET_INPUT}" -o from_file.npy)
  cost_line("${OUT}" file_cost)
  expect_equal("${json_cost}" "${file_cost}" "cost of the JSON model vs the converted file")
  expect_same_file("${WORK_DIR}/from_json.npy" "${WORK_DIR}/from_file.npy")
  expect_match("${json_summary}" "result: +argmax \\[([0-9]+)\\]" "argmax result")
  set(json_argmax "${MATCH1}")
  expect_match("${OUT}" "result: +argmax \\[${json_argmax}\\]" "argmax of the model file")
  # both equal the independent Python reference of examples/gen_models.py
  string(JSON want_argmax GET "${EXPECTED}" lenet argmax)
  expect_equal("${json_argmax}" "${want_argmax}" "argmax vs examples/models/expected.json")
  string(JSON want_total GET "${EXPECTED}" lenet cost total)
  expect_match("${file_cost}" "= total ([0-9,]+)$" "total")
  string(REPLACE "," "" total "${MATCH1}")
  expect_equal("${total}" "${want_total}" "total cost vs examples/models/expected.json")
  cvm(0 inspect lenet.cvmrt)
  expect_match("${OUT}" "name: +LeNet" "metadata name")
  expect_match("${OUT}" "labels: +10 \\(zero" "metadata labels")

elseif(SCENARIO STREQUAL "setup_command")
  # exactly what scripts/setup.sh runs, from the repository root
  execute_process(COMMAND "${CLI}" run examples/models/lenet.json
                          --params examples/models/lenet.params
                          --input data=examples/models/lenet_input.npy
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE OUT ERROR_VARIABLE ERR)
  set(LAST "cvmrt run examples/models/lenet.json (setup)")
  expect_equal("${rc}" "0" "exit status; stderr: ${ERR}")
  string(JSON want GET "${EXPECTED}" lenet output)
  string(REGEX REPLACE "[][ \n]" "" want "${want}")
  expect_match("${OUT}" "output 0 \"fc3_shift\": \\(1, 10\\) precision 8\n  \\[([^]]*)\\]" "output")
  string(REPLACE " " "" got "${MATCH1}")
  expect_equal("${got}" "${want}" "LeNet output vs examples/models/expected.json")
  expect_match("${OUT}" "cost: +ops 1,282,316 \\+ mem 452,590 = total 1,734,906" "cost")

elseif(SCENARIO STREQUAL "input_formats")
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" -o npy_in.npy)
  # the same input as raw CVM bytes (int8)
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "data=${M}/lenet_input.bin"
      -o bin_in.npy)
  expect_same_file("${WORK_DIR}/npy_in.npy" "${WORK_DIR}/bin_in.npy")
  # the scalar reference backend gives the same bytes
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" -o scalar.npy
      --backend scalar)
  expect_match("${OUT}" "backend: scalar" "backend")
  expect_same_file("${WORK_DIR}/npy_in.npy" "${WORK_DIR}/scalar.npy")
  # json on stdout: every output value, the argmax result and the cost
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --format json)
  string(FIND "${OUT}" "model:" summary_at)
  string(SUBSTRING "${OUT}" 0 ${summary_at} doc)
  string(JSON got GET "${doc}" outputs 0 data)
  string(JSON want GET "${EXPECTED}" lenet output)
  string(REGEX REPLACE "[][ \n]" "" got "${got}")
  string(REGEX REPLACE "[][ \n]" "" want "${want}")
  expect_equal("${got}" "${want}" "json output data")
  string(JSON result GET "${doc}" result values 0)
  string(JSON want_argmax GET "${EXPECTED}" lenet argmax)
  expect_equal("${result}" "${want_argmax}" "json result")
  string(JSON total GET "${doc}" cost total)
  string(JSON want_total GET "${EXPECTED}" lenet cost total)
  expect_equal("${total}" "${want_total}" "json cost")
  # json and text to files; several heads to NAME.npy and NAME_k.npy
  cvm(0 run "${M}/reduce.json" --params "${M}/reduce.params"
      --input "data=${M}/reduce_input.npy" -o reduce.json)
  file(READ "${WORK_DIR}/reduce.json" doc)
  string(JSON n LENGTH "${doc}" outputs)
  expect_equal("${n}" "2" "reduce outputs")
  cvm(0 run "${M}/reduce.json" --params "${M}/reduce.params"
      --input "data=${M}/reduce_input.npy" -o reduce.npy)
  foreach(f reduce.npy reduce_1.npy)
    if(NOT EXISTS "${WORK_DIR}/${f}")
      message(FATAL_ERROR "run -o reduce.npy wrote no ${f}")
    endif()
  endforeach()
  cvm(0 run "${M}/vision.json" --params "${M}/vision.params"
      --input "data=${M}/vision_input.npy" -o vision.txt --format text)
  file(READ "${WORK_DIR}/vision.txt" text)
  expect_match("${text}" "output 2 \"slice_box\": \\(1, 8, 4\\)" "text output file")
  expect_match("${OUT}" "result: +detection \\[0, 90, 10, 10, 50, 50, 1, 75," "detection result")

elseif(SCENARIO STREQUAL "examples_cost")
  foreach(model elementwise broadcast reduce nn vision transform lenet)
    cvm(0 run "${M}/${model}.json" --params "${M}/${model}.params"
        --input "data=${M}/${model}_input.npy" --format json)
    string(FIND "${OUT}" "model:" summary_at)
    string(SUBSTRING "${OUT}" 0 ${summary_at} doc)
    foreach(part ops mem total)
      string(JSON got GET "${doc}" cost ${part})
      string(JSON want GET "${EXPECTED}" ${model} cost ${part})
      expect_equal("${got}" "${want}" "${model} cost ${part} vs examples/models/expected.json")
    endforeach()
  endforeach()

elseif(SCENARIO STREQUAL "inspect")
  cvm(0 inspect "${LENET_JSON}" --params "${LENET_PARAMS}")
  foreach(re "conv1 +conv2d +\\(1, 6, 28, 28\\) +22 +76 +357,504"
             "fc1 +dense +\\(1, 120\\) +26 +1,201 +144,120"
             "cost: +ops 1,282,316, mem 452,590, total 1,734,906"
             "planned [0-9,]+ bytes" "unplanned [0-9,]+ bytes" "saving [0-9.]+%")
    expect_match("${OUT}" "${re}" "inspect report")
  endforeach()
  expect_match("${OUT}" "\nproducer: unknown \\(CVM JSON\\)\n" "producer of a CVM JSON model")
  # Provenance: per node the chain of kernels it is bound to, the scalar reference last.
  expect_match("${OUT}" "\nkernels \\(backend [a-z]+;" "kernels section")
  expect_match("${OUT}" "\n  conv1 +conv2d +[a-z0-9_]+__[a-z0-9_]+( \\(weight packed\\))?( > [a-z0-9_]+__[a-z0-9_]+( \\(weight packed\\))?)*\n"
               "conv1's chain")
  expect_match("${OUT}" "\n  fc1 +dense +[^\n]*dense_i32__scalar\n" "fc1's chain ends with the reference")
  # Int8 activations where the kernels take them (the x86 backend): fc1's output, which only
  # fc2 reads; conv1's and its max pool's together (the pool takes int8 views, or neither is).
  if(OUT MATCHES "writes its output as int8")
    expect_match("${OUT}" "\n  fc1 +dense +[^\n]*\n +writes its output as int8\n" "fc1 writes int8")
    set(int8_conv1 FALSE)
    set(int8_pool FALSE)
    if(OUT MATCHES "\n  conv1 +conv2d +[^\n]*\n +writes its output as int8\n")
      set(int8_conv1 TRUE)
    endif()
    if(OUT MATCHES "\n  conv1_pool +max_pool2d +[^\n]*\n +writes its output as int8\n")
      set(int8_pool TRUE)
    endif()
    if(NOT int8_conv1 STREQUAL int8_pool)
      message(FATAL_ERROR "conv1 and the max_pool2d reading it hold int8 apart:\n${OUT}")
    endif()
  endif()
  cvm(0 inspect "${LENET_JSON}" --params "${LENET_PARAMS}" --backend scalar)
  expect_match("${OUT}" "\nkernels \\(backend scalar;" "kernels of the scalar backend")
  if(OUT MATCHES "writes its output as int8")
    message(FATAL_ERROR "the scalar backend takes no int8 activations:\n${OUT}")
  endif()
  # The clamps after conv1 run as one pass, computed by the first of them (the reference's
  # conv applies none itself, and holds no int8).
  expect_match("${OUT}" "one cvm_right_shift pass for conv1_shift, conv1_clip, conv1_relu[ \n]"
               "conv1's clamps fused")
  expect_match("${OUT}" "\n  conv1_relu +relu +\\(in conv1_shift's pass\\)\n" "a fused node")
  expect_match("${OUT}" "\n  conv1 +conv2d +conv2d_i32__scalar\n" "conv1 on the reference alone")
  cvm(1 inspect "${LENET_JSON}" --params "${LENET_PARAMS}" --backend tpu)
  expect_match("${ERR}" "unknown backend \"tpu\"" "unknown backend")
  cvm(0 inspect "${LENET_JSON}" --params "${LENET_PARAMS}")
  inspect_total("${OUT}" json_total)
  cvm(0 convert "${LENET_JSON}" "${LENET_PARAMS}" -o lenet.cvmrt)
  cvm(0 inspect lenet.cvmrt)
  # A file written now names this library (the VERSION file's version) as its producer.
  file(STRINGS "${SOURCE_DIR}/VERSION" version)
  string(REPLACE "." "\\." version_re "${version}")
  expect_match("${OUT}" "\nproducer: cvmrt ${version_re}\n" "producer of a model file")
  inspect_total("${OUT}" file_total)
  expect_equal("${json_total}" "${file_total}" "inspect total of the JSON model vs the file")
  cvm(0 inspect "${M}/vision.json" --params "${M}/vision.params")
  expect_match("${OUT}" "non_max_suppression +\\(1, 8, 6\\)" "vision nodes")
  expect_match("${OUT}" "postprocess \"detection\"" "postprocess")

elseif(SCENARIO STREQUAL "bench")
  cvm(0 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --warmup 1 --runs 3 --threads 1)
  foreach(re "runs: +3 \\(after 1 warmup, 0 measuring the thread choice\\)"
             "latency: p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms"
             "per-node profile" "conv2 +conv2d" "per-op totals")
    expect_match("${OUT}" "${re}" "bench report")
  endforeach()
  # With 2 threads the session measures its thread choice after warmup run 0: 3 to 25 pairs of
  # serial and split runs (until they took 20 ms), as many mixed runs, and as many solo runs
  # where a node was clearly faster split: 9 to 100.
  cvm(0 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --warmup 1 --runs 3 --threads 2)
  foreach(re "runs: +3 \\(after 1 warmup, ([1-9][0-9]|100|9) measuring the thread choice\\)"
             "\nthreads: [0-9]+ of [0-9]+ nodes split over 2 threads, the rest measured faster")
    expect_match("${OUT}" "${re}" "bench report at 2 threads")
  endforeach()
  cvm(0 bench "${M}/nn.json" --params "${M}/nn.params" --runs 3 --input "data=${M}/nn_input.npy"
      --top 2 --backend scalar)
  expect_match("${OUT}" "\\.\\.\\. 7 more" "--top 2 of 9 operator nodes")
  cvm(1 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --runs 0)
  expect_match("${ERR}" "--runs" "runs range")
  # --format json: one line with the latencies and the cost; --profile 0 profiles nothing
  cvm(0 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --format json --runs 2 --profile 0)
  expect_match("${OUT}" "^[{][^\n]*[}]\n$" "one JSON line")
  string(JSON runs GET "${OUT}" runs)
  expect_equal("${runs}" "2" "runs")
  foreach(stat min mean max p50 p90 p99)
    string(JSON ms GET "${OUT}" latency_ms ${stat})
    expect_match("${ms}" "^[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?$" "latency_ms ${stat}")
  endforeach()
  foreach(part ops mem total)
    string(JSON got GET "${OUT}" cost ${part})
    string(JSON want GET "${EXPECTED}" lenet cost ${part})
    expect_equal("${got}" "${want}" "lenet cost ${part} vs examples/models/expected.json")
  endforeach()
  string(JSON profiled GET "${OUT}" profile_runs)
  expect_equal("${profiled}" "0" "profile_runs")
  string(JSON ops LENGTH "${OUT}" op_us)
  expect_equal("${ops}" "0" "per-op totals without a profile")

elseif(SCENARIO STREQUAL "verify")
  cvm(0 verify --vectors "${SOURCE_DIR}/tests/vectors")
  expect_match("${OUT}" "PASS: 0 checks failed" "verify summary")
  expect_match("${OUT}" "conv2d +ok [0-9]+ +ok [0-9]+" "conv2d row")
  cvm(0 verify --vectors "${SOURCE_DIR}/tests/vectors" --backend scalar --op dense)
  expect_match("${OUT}" "dense +ok [0-9]+ +ok [0-9]+\n\nPASS" "one op, one backend")
  # a wrong expectation is reported as a failure with exit status 1
  file(WRITE "${WORK_DIR}/bad/case.json" [=[
[{"name": "wrong on purpose", "op": "relu", "source": "hand",
  "inputs": [{"shape": [3], "dtype": "int32", "data": [-1, 0, 5]}],
  "expected": {"outputs": [{"shape": [3], "dtype": "int32", "data": [0, 0, 6]}]}}]
]=])
  cvm(1 verify --vectors "${WORK_DIR}/bad")
  expect_match("${OUT}" "relu +FAIL 1/1" "failure row")
  expect_match("${ERR}" "element 2 is 5, expected 6" "failure detail")
  file(WRITE "${WORK_DIR}/malformed/case.json" "[{\"name\": \"x\"}]")
  cvm(1 verify --vectors "${WORK_DIR}/malformed")
  expect_match("${ERR}" "missing key \"op\"" "malformed vector file")
  cvm(1 verify --vectors "${WORK_DIR}/no_such_dir")
  expect_match("${ERR}" "does not exist" "missing vectors folder")
  cvm(1 verify --backend no_such_backend)
  expect_match("${ERR}" "unknown backend" "unknown backend")

elseif(SCENARIO STREQUAL "bad_arguments")
  cvm(1 no_such_command)
  expect_match("${ERR}" "unknown command \"no_such_command\"" "unknown command")
  cvm(1 run)
  expect_match("${ERR}" "cvmrt run: error: missing argument" "no MODEL")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}")
  expect_match("${ERR}" "missing --input" "no input")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --format xml)
  expect_match("${ERR}" "--format must be npy, json or text" "bad format")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --format npy)
  expect_match("${ERR}" "--format npy needs --output" "npy to nowhere")
  cvm(1 run "${LENET_JSON}" --frobnicate)
  expect_match("${ERR}" "unknown option \"--frobnicate\"" "unknown option")
  expect_match("${ERR}" "see `cvmrt run --help`" "help hint")
  cvm(1 run "${LENET_JSON}" --params)
  expect_match("${ERR}" "option --params needs a value" "missing value")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "other=${M}/lenet_input.npy")
  expect_match("${ERR}" "no input \"other\"" "wrong input name")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --backend gpu9)
  expect_match("${ERR}" "unknown backend \"gpu9\"" "bad backend")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --device tpu)
  expect_match("${ERR}" "--device must be cpu, cuda or cuda:N, found \"tpu\"" "bad device")
  cvm(1 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --device cuda --backend simd)
  expect_match("${ERR}" "--backend applies to the CPU" "device and backend")
  cvm(1 convert "${LENET_JSON}" "${LENET_PARAMS}")
  expect_match("${ERR}" "missing -o" "convert without -o")
  cvm(1 inspect a b)
  expect_match("${ERR}" "unexpected argument \"b\"" "extra argument")
  cvm(1 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --runs many)
  expect_match("${ERR}" "option --runs: expected an integer" "non-numeric runs")
  cvm(1 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --format xml)
  expect_match("${ERR}" "cvmrt bench: error: --format must be text or json, found \"xml\"\n"
               "\\(see `cvmrt bench --help`\\)" "bench --format xml")
  # a shape mismatch between the input file and the model
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "data=${M}/nn_input.npy")
  expect_match("${ERR}" "the model expects \\(1, 1, 28, 28\\)" "input shape")
  # help for every command
  foreach(c run inspect convert bench verify info params demo)
    cvm(0 ${c} --help)
    expect_match("${OUT}" "^usage: cvmrt ${c}" "help of ${c}")
  endforeach()
  cvm(0 help)
  expect_match("${OUT}" "exit status: 0 ok, 1 bad input" "usage")

elseif(SCENARIO STREQUAL "cuda_device")
  # --device cuda: on a GPU the CPU's outputs and cost; without one a runtime error (exit 2)
  # naming the device and why, as cvmrt info says it.
  cvm(0 info)
  set(info "${OUT}")
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --format json)
  string(REGEX REPLACE "\"(backend|device)\":\"[^\"]*\"" "" cpu_json "${OUT}")
  if(info MATCHES "\ncuda:0: ")
    cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --format json
        --device cuda)
    expect_match("${OUT}" "\"device\":\"cuda:0\"" "device in the JSON")
    string(REGEX REPLACE "\"(backend|device)\":\"[^\"]*\"" "" gpu_json "${OUT}")
    expect_equal("${gpu_json}" "${cpu_json}" "outputs and cost on the GPU vs the CPU")
    cvm(0 eval "${LENET_JSON}" --params "${LENET_PARAMS}" --inputs "${M}/lenet_input.npy"
        --device cuda:0)
  else()
    expect_match("${info}" "\ncuda: unavailable: [^\n]+" "cvmrt info says why")
    cvm(2 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --device cuda)
    expect_match("${ERR}" "cuda:0" "the device named")
    cvm(2 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --runs 1 --device cuda:1)
    expect_match("${ERR}" "cuda:1" "the device named")
  endif()

elseif(SCENARIO STREQUAL "missing_files")
  cvm(1 run no_such_model.json --params "${LENET_PARAMS}" --input "${LENET_INPUT}")
  expect_match("${ERR}" "cannot open 'no_such_model.json'" "missing graph")
  cvm(1 run "${LENET_JSON}" --params no_such.params --input "${LENET_INPUT}")
  expect_match("${ERR}" "cannot open 'no_such.params'" "missing params")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input data=no_such_input.npy)
  expect_match("${ERR}" "cannot open 'no_such_input.npy'" "missing input")
  cvm(1 inspect no_such_model.cvmrt)
  expect_match("${ERR}" "cannot open model file 'no_such_model.cvmrt'" "missing model file")
  file(MAKE_DIRECTORY "${WORK_DIR}/folder.cvmrt")
  cvm(1 inspect folder.cvmrt)
  expect_match("${ERR}" "cannot open model file 'folder.cvmrt': not a regular file" "a folder")
  cvm(1 run "${LENET_JSON}" --params folder.cvmrt --input "${LENET_INPUT}")
  expect_match("${ERR}" "cannot open 'folder.cvmrt': is a directory" "a folder as params")
  cvm(1 convert "${LENET_JSON}" no_such.params -o x.cvmrt)
  expect_match("${ERR}" "no_such.params" "convert: missing params")
  # malformed files
  file(WRITE "${WORK_DIR}/bad.npy" "not an npy file at all")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input data=bad.npy)
  expect_match("${ERR}" "bad.npy: not a .npy file" "malformed npy")
  file(WRITE "${WORK_DIR}/short.bin" "abc")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input data=short.bin)
  expect_match("${ERR}" "is 3 bytes of raw input, the model expects 784" "short raw input")
  file(WRITE "${WORK_DIR}/broken.json" "{\"nodes\": [")
  cvm(1 inspect broken.json --params "${LENET_PARAMS}")
  expect_match("${ERR}" "broken.json" "malformed graph")
  file(WRITE "${WORK_DIR}/bad.cvmrt" "this is not a model file")
  cvm(1 inspect bad.cvmrt)
  expect_match("${ERR}" "bad.cvmrt" "malformed model file")
  # the graph without its params
  cvm(1 inspect "${LENET_JSON}")
  expect_match("${ERR}" "\\(no --params given\\)" "params hint")

elseif(SCENARIO STREQUAL "system_report")
  cvm(0 inspect --system)
  foreach(re "(^|\n)cpu: [^\n]+" "\ncpu features: [^\n]+" "\nusable features: "
             "\nthreads: [0-9]+ \\(default: the hardware concurrency\\)"
             "\nbackends: [^\n]*scalar \\(preferred: [a-z]+\\)"
             "\nmain kernels" "\n  conv2d +int32 -> conv2d_[a-z0-9]+__[a-z0-9_]+\n" "\n  dense +int32 -> "
             "\n  matmul +int32 -> " "\n  add +int32 -> " "\n  max_pool2d +int32 -> "
             "\n  reduce_sum +int32 -> " "\nall kernels" "\n  relu int32( float32)? -> ")
    expect_match("${OUT}" "${re}" "system report")
  endforeach()
  if(NOT OUT MATCHES "\nisa level: (scalar|avx2|avx512|amx) \\(|\nisa level: n/a")
    message(FATAL_ERROR "inspect --system: no ISA level in:\n${OUT}")
  endif()
  set(have_levels OFF)  # a build with the x86 SIMD backend
  if(OUT MATCHES "\nisa level: [a-z0-9]+ \\(")
    set(have_levels ON)
    expect_match("${OUT}" "\namx permission: (granted|denied|not requested|n/a)" "AMX")
  endif()

  # CVMRT_ISA and CVMRT_THREADS are reported, and the kernels follow the cap
  set(ENV{CVMRT_ISA} avx2)
  set(ENV{CVMRT_THREADS} 3)
  cvm(0 inspect --system)
  expect_match("${OUT}" "\nthreads: 3 \\(from CVMRT_THREADS=3; hardware [0-9]+\\)" "threads")
  if(have_levels)
    expect_match("${OUT}" "\nisa level: (avx2|scalar) \\(CVMRT_ISA=avx2 caps it" "capped level")
    if(OUT MATCHES "\nisa level: avx2")
      expect_match("${OUT}" "\n  conv2d +int32 -> conv2d_i16i32__avx2(_winograd)?\n" "conv2d at avx2")
      expect_match("${OUT}" "\n  add +int32 -> add_i32__avx2\n" "add at avx2")
    endif()
    if(OUT MATCHES "usable features: [^\n]*avx512")
      message(FATAL_ERROR "CVMRT_ISA=avx2 left avx512 usable:\n${OUT}")
    endif()
    set(ENV{CVMRT_ISA} scalar)
    cvm(0 inspect --system)
    expect_match("${OUT}" "\nisa level: scalar \\(CVMRT_ISA=scalar caps it" "scalar level")
    expect_match("${OUT}" "\nusable features: \\(none\\)\n" "no features at scalar")
    expect_match("${OUT}" "\n  conv2d +int32 -> conv2d_i32__scalar\n" "conv2d at scalar")
  endif()

  # an unknown CVMRT_ISA is a warning in the report and on stderr, never silently ignored
  set(ENV{CVMRT_ISA} avx9)
  cvm(0 inspect --system)
  expect_match("${OUT}" "^warning: CVMRT_ISA=\"avx9\" (is not an ISA level|has no effect)"
               "report warning")
  expect_match("${ERR}" "cvmrt: warning: CVMRT_ISA=\"avx9\"" "stderr warning")
  if(have_levels)
    expect_match("${OUT}"
                 "\nisa level: [a-z0-9]+ \\([^\n]*CVMRT_ISA=\"avx9\" is not a level: no cap"
                 "uncapped level")
  endif()
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}")
  expect_match("${ERR}" "cvmrt: warning: CVMRT_ISA=\"avx9\"" "warning on run")
  unset(ENV{CVMRT_ISA})

  # a malformed CVMRT_THREADS is reported, not fatal to the report; --threads overrides it
  set(ENV{CVMRT_THREADS} lots)
  cvm(0 inspect --system)
  expect_match("${OUT}" "warning: CVMRT_THREADS=\"lots\": expected an integer" "bad env")
  expect_match("${OUT}" "\nthreads: none \\(a bad CVMRT_THREADS" "no thread count")
  cvm(0 inspect --system --threads 2)
  expect_match("${OUT}" "\nthreads: 2 \\(from --threads; hardware [0-9]+; CVMRT_THREADS=lots "
               "overridden\\)" "flag over a bad env")

elseif(SCENARIO STREQUAL "threads_flag")
  # --threads before or after the command: the same bytes as the default thread count
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" -o default.npy)
  cvm(0 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" -o two.npy
      --threads 2)
  expect_same_file("${WORK_DIR}/default.npy" "${WORK_DIR}/two.npy")
  cvm(0 --threads=1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}"
      -o one.npy)
  expect_same_file("${WORK_DIR}/default.npy" "${WORK_DIR}/one.npy")
  # the flag sets the pool size, over CVMRT_THREADS
  set(ENV{CVMRT_THREADS} 3)
  cvm(0 inspect --system --threads 2)
  expect_match("${OUT}" "\nthreads: 2 \\(from --threads; hardware [0-9]+; CVMRT_THREADS=3 "
               "overridden\\)" "inspect --threads 2")
  cvm(0 --threads 5 inspect --system)
  expect_match("${OUT}" "\nthreads: 5 \\(from --threads" "global --threads 5")
  unset(ENV{CVMRT_THREADS})
  cvm(0 bench "${LENET_JSON}" --params "${LENET_PARAMS}" --runs 1 --warmup 0 --threads 2)
  cvm(0 verify --op relu --threads 2 --vectors "${SOURCE_DIR}/tests/vectors")
  expect_match("${OUT}" "PASS" "verify --threads 2")
  # bad values: a usage error (exit status 1, as every usage error) naming the range
  foreach(bad 0 -1 abc 1.5 99999 "")
    cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}"
        "--threads=${bad}")
    expect_match("${ERR}" "cvmrt run: error: option --threads: expected an integer in \\[1, "
                 "1024\\], found \"${bad}\"\n\\(see `cvmrt run --help`\\)" "--threads ${bad}")
  endforeach()
  cvm(1 inspect --system --threads -3)
  expect_match("${ERR}" "option --threads: expected an integer in \\[1, 1024\\], found \"-3\""
               "negative count")
  cvm(1 inspect --system --threads)
  expect_match("${ERR}" "option --threads needs a value" "missing count")
  cvm(1 --threads 2 inspect --system --threads 3)
  expect_match("${ERR}" "option --threads given more than once" "twice")
  cvm(0 help)
  expect_match("${OUT}" "--threads N +threads one operator may use, 1 to 1024" "usage text")
  cvm(0 run --help)
  expect_match("${OUT}" "global options .*--threads N" "run --help")

elseif(SCENARIO STREQUAL "onnx_import")
  set(O "${SOURCE_DIR}/tests/onnx")
  cvm(0 import "${O}/models/small_cnn.onnx" -o small_cnn.cvmrt)
  expect_match("${OUT}" "^wrote small_cnn.cvmrt: [0-9]+ nodes, params [0-9,]+ bytes, cost ops [0-9,]+ \\+ mem [0-9,]+ = total [0-9,]+\n$"
               "import summary")
  # importing twice gives the same bytes
  cvm(0 import "${O}/models/small_cnn.onnx" -o again.cvmrt --batch 1)
  expect_same_file("${WORK_DIR}/small_cnn.cvmrt" "${WORK_DIR}/again.cvmrt")
  cvm(0 inspect small_cnn.cvmrt)
  expect_match("${OUT}" "imported from ONNX \\(producer [^,]+, opset 13\\)" "metadata")
  cvm(0 run small_cnn.cvmrt --input "data=${O}/models/small_cnn.input.npy")
  expect_match("${OUT}" "output 0 \"[^\"]+\": \\(1, 10\\) float32" "float output")
  # refused models, files and arguments: exit 1 with the reason
  cvm(1 import "${O}/bad/conv1d.onnx" -o bad.cvmrt)
  expect_match("${ERR}" "cvmrt import: error: onnx: node 0 \"[^\"]+\" \\(Conv\\): only 2-D convolution"
               "unsupported node")
  cvm(1 import "${O}/bad/garbage.onnx" -o bad.cvmrt)
  expect_match("${ERR}" "cvmrt import: error: onnx: cannot parse" "garbage")
  cvm(1 import "${O}/bad/dynamic_dim.onnx" -o bad.cvmrt)
  expect_match("${ERR}" "dynamic dimension 2" "dynamic dimension")
  cvm(1 import no_such_model.onnx -o bad.cvmrt)
  expect_match("${ERR}" "onnx: cannot open 'no_such_model.onnx'" "missing file")
  cvm(1 import "${O}/models/relu.onnx")
  expect_match("${ERR}" "missing -o MODEL.cvmrt" "missing -o")
  cvm(1 import "${O}/models/relu.onnx" -o bad.cvmrt --batch 0)
  expect_match("${ERR}" "option --batch: expected an integer" "bad --batch")
  if(EXISTS "${WORK_DIR}/bad.cvmrt")
    message(FATAL_ERROR "a refused import wrote bad.cvmrt")
  endif()
  cvm(0 import --help)
  expect_match("${OUT}" "usage: cvmrt import MODEL.onnx -o OUT.cvmrt \\[--batch N\\]" "help")
  # bench on a float model: seeded float32 input
  cvm(0 bench small_cnn.cvmrt --runs 3 --warmup 1)
  expect_match("${OUT}" "input: +synthetic \\(seeded, float32 in \\[-1, 1\\]\\)" "bench float input")
  # quantize (its input file as a one-sample calibration batch is enough for the interface),
  # then run, bench and eval the int8 model on float input
  set(Q "${O}/models/conv_bn")
  cvm(0 quantize "${Q}.onnx" --calib "${Q}.input.npy" -o conv_bn_int8.cvmrt --cvm conv_bn_cvm
      --report)
  expect_match("${OUT}" "quantized .*conv_bn.onnx \\([0-9]+ float nodes\\) with 1 calibration samples, per-channel"
               "quantize summary")
  foreach(f model.json model.params quant.json)
    if(NOT EXISTS "${WORK_DIR}/conv_bn_cvm/${f}")
      message(FATAL_ERROR "cvmrt quantize --cvm wrote no ${f}")
    endif()
  endforeach()
  cvm(0 run conv_bn_int8.cvmrt --input "data=${Q}.input.npy" --dequantize)
  expect_match("${OUT}" "float32 \\(q / [0-9]+" "dequantized output")
  cvm(0 bench conv_bn_int8.cvmrt --input "data=${Q}.input.npy" --runs 3 --warmup 1)
  cvm(0 eval conv_bn_int8.cvmrt --inputs "${Q}.input.npy")
  expect_match("${OUT}" "run: +1 inputs in .*\noutputs: +xxh64 [0-9a-f]+" "eval")
  cvm(1 quantize "${O}/models/small_cnn.onnx" --calib "${O}/models/small_cnn.input.npy" -o bad.cvmrt)
  expect_match("${ERR}" "\\(sigmoid\\): sigmoid has no exact CVM form" "quantize refuses inner sigmoid")
  cvm(1 quantize "${Q}.onnx" -o bad.cvmrt)
  expect_match("${ERR}" "missing --calib" "quantize without --calib")
  cvm(1 quantize "${Q}.onnx" --calib "${Q}.input.npy" -o bad.cvmrt --percentile 30)
  expect_match("${ERR}" "--percentile expects a number in \\(50, 100\\]" "bad --percentile")
  cvm(0 quantize "${Q}.onnx" --calib "${Q}.input.npy" -o conv_bn_p999.cvmrt --percentile 99.9)

elseif(SCENARIO STREQUAL "quantized_io")
  # the model and input files come from the unit tests (tests/unit/quantized_io_test.cc)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env "CVMRT_QUANT_CLI_DIR=${WORK_DIR}"
                          "${TESTS}" "[quant_cli]"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK_DIR}/quant.cvmrt")
    message(FATAL_ERROR "cvmrt_tests [quant_cli] failed (${rc}):\n${out}\n${err}")
  endif()
  # a float32 .npy is quantized: round(x * 64), halves away from zero, clamped to +-127
  cvm(0 run quant.cvmrt --input data=quant_input.npy)
  expect_match("${OUT}" "output 0 \"plain\": \\(2, 4\\) precision 8\n  \\[1, -1, 3, 127, -127, 2, -3, 0\\]"
               "quantized input")
  expect_match("${OUT}" "from data=quant_input.npy \\(float32, quantized: round\\(x \\* 64\\)\\)"
               "input summary")
  expect_match("${OUT}" "result: +argmax \\[([^]]*)\\]" "argmax result")
  set(float_out "${OUT}")
  # the same integers as an int32 .npy: the same outputs and section 7 result
  cvm(0 run quant.cvmrt --input data=quant_input_int.npy)
  string(REGEX REPLACE "\n(input|backend):[^\n]*" "" a "${float_out}")
  string(REGEX REPLACE "\n(input|backend):[^\n]*" "" b "${OUT}")
  expect_equal("${a}" "${b}" "float32 vs int32 input")
  # --dequantize: q / scale, then the tails
  cvm(0 run quant.cvmrt --input data=quant_input.npy --dequantize)
  expect_match("${OUT}" "output 0 \"plain\": \\(2, 4\\) float32 \\(q / 64\\)\n  \\[0.015625, -0.015625, 0.046875, 1.984375, -1.984375, 0.03125, -0.046875, 0\\]"
               "dequantized output")
  expect_match("${OUT}" "output 1 \"soft\": \\(2, 4\\) float32 \\(q / 32, then softmax \\(axis 1\\)\\)"
               "softmax tail")
  expect_match("${OUT}" "output 2 \"sig\": \\(2, 4\\) float32 \\(q / 16, then sigmoid\\)\n  \\[[^]]*, 0.5\\]"
               "sigmoid tail")
  cvm(0 run quant.cvmrt --input data=quant_input.npy --dequantize -o deq.json)
  file(READ "${WORK_DIR}/deq.json" doc)
  string(JSON v GET "${doc}" outputs 0 data 3)
  expect_equal("${v}" "1.984375" "json dequantized value")
  string(JSON v GET "${doc}" outputs 1 dtype)
  expect_equal("${v}" "float32" "json dtype")
  string(JSON v GET "${doc}" outputs 1 dequantized tail)
  expect_equal("${v}" "softmax" "json tail")
  cvm(0 run quant.cvmrt --input data=quant_input.npy --dequantize -o deq.npy)
  cvm(0 run quant.cvmrt --input data=quant_input.npy -o ints.npy)
  foreach(f deq.npy deq_1.npy deq_2.npy)
    if(NOT EXISTS "${WORK_DIR}/${f}")
      message(FATAL_ERROR "run --dequantize -o deq.npy wrote no ${f}")
    endif()
  endforeach()
  file(READ "${WORK_DIR}/deq.npy" hdr OFFSET 10 LIMIT 40)
  expect_match("${hdr}" "'descr': '<f4'" "dequantized npy dtype")
  file(READ "${WORK_DIR}/ints.npy" hdr OFFSET 10 LIMIT 40)
  expect_match("${hdr}" "'descr': '<i4'" "integer npy dtype")
  # refused: NaN, --dequantize without quantization metadata
  cvm(1 run quant.cvmrt --input data=quant_input_nan.npy)
  expect_match("${ERR}" "NaN at flat index 5" "NaN input")
  cvm(1 run "${LENET_JSON}" --params "${LENET_PARAMS}" --input "${LENET_INPUT}" --dequantize)
  expect_match("${ERR}" "--dequantize: .*lenet.json is not a quantized model" "not quantized")
  # a float model takes float32 and prints floats (text and json)
  cvm(0 run float.cvmrt --input data=float_input.npy)
  expect_match("${OUT}" "output 0 \"scaled\": \\(2, 3\\) float32\n  \\[1.5, 0, 0.375, 0, 4.5, 0.1875\\]"
               "float model text")
  expect_match("${OUT}" "input: +\"data\" \\(2, 3\\) float32 from" "float input summary")
  cvm(0 run float.cvmrt --input data=float_input.npy --format json)
  string(FIND "${OUT}" "model:" summary_at)
  string(SUBSTRING "${OUT}" 0 ${summary_at} doc)
  string(JSON v GET "${doc}" outputs 0 data 2)
  expect_equal("${v}" "0.375" "float model json")
  string(JSON v GET "${doc}" outputs 0 dtype)
  expect_equal("${v}" "float32" "float model json dtype")
  cvm(1 run float.cvmrt --input data=float_input_int.npy)
  expect_match("${ERR}" "this float model takes float32" "int input to a float model")
  cvm(1 run float.cvmrt --input data=float_input.npy --dequantize)
  expect_match("${ERR}" "is not a quantized model" "--dequantize on a float model")
  cvm(0 run --help)
  expect_match("${OUT}" "--dequantize +quantized models" "help")

else()
  message(FATAL_ERROR "cli_test.cmake: unknown scenario \"${SCENARIO}\"")
endif()

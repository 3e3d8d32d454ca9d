// Row softmax on tensors (arith/math on tensors, linalg reductions): input for opt-tool Runs.
func.func @softmax_rows(%x: tensor<16x128xf32>) -> tensor<16x128xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%init : tensor<16xf32>) -> tensor<16xf32>
  %mx = linalg.reduce ins(%x : tensor<16x128xf32>) outs(%mx0 : tensor<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  %full = tensor.empty() : tensor<16x128xf32>
  %mxb = linalg.broadcast ins(%mx : tensor<16xf32>) outs(%full : tensor<16x128xf32>) dimensions = [1]
  %sh = arith.subf %x, %mxb : tensor<16x128xf32>
  %e = math.exp %sh : tensor<16x128xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%init : tensor<16xf32>) -> tensor<16xf32>
  %s = linalg.reduce ins(%e : tensor<16x128xf32>) outs(%s0 : tensor<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  %sb = linalg.broadcast ins(%s : tensor<16xf32>) outs(%full : tensor<16x128xf32>) dimensions = [1]
  %y = arith.divf %e, %sb : tensor<16x128xf32>
  return %y : tensor<16x128xf32>
}

module {
  func.func @softmax_rows(%arg0: tensor<16x128xf32>) -> tensor<16x128xf32> {
    %cst = arith.constant -3.40282347E+38 : f32
    %0 = tensor.empty() : tensor<16xf32>
    %1 = hivm.hir.vbrc ins(%cst : f32) outs(%0 : tensor<16xf32>) -> tensor<16xf32>
    %expanded = tensor.expand_shape %1 [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
    %2 = hivm.hir.vreduce <max> ins(%arg0 : tensor<16x128xf32>) outs(%expanded : tensor<16x1xf32>) reduce_dims = [1] -> tensor<16x1xf32>
    %3 = tensor.empty() : tensor<16x128xf32>
    %4 = hivm.hir.vbrc ins(%2 : tensor<16x1xf32>) outs(%3 : tensor<16x128xf32>) broadcast_dims = [1] -> tensor<16x128xf32>
    %5 = hivm.hir.vsub ins(%arg0, %4 : tensor<16x128xf32>, tensor<16x128xf32>) outs(%3 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %6 = hivm.hir.vexp ins(%5 : tensor<16x128xf32>) outs(%3 : tensor<16x128xf32>) -> tensor<16x128xf32>
    %7 = tensor.empty() : tensor<16x1xf32>
    %8 = hivm.hir.vreduce <sum> ins(%6 : tensor<16x128xf32>) outs(%7 : tensor<16x1xf32>) reduce_dims = [1] -> tensor<16x1xf32>
    %9 = hivm.hir.vbrc ins(%8 : tensor<16x1xf32>) outs(%3 : tensor<16x128xf32>) broadcast_dims = [1] -> tensor<16x128xf32>
    %10 = hivm.hir.vdiv ins(%6, %9 : tensor<16x128xf32>, tensor<16x128xf32>) outs(%3 : tensor<16x128xf32>) -> tensor<16x128xf32>
    return %10 : tensor<16x128xf32>
  }
}


public struct Trip {}

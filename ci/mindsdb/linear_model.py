# A tiny linear model for MindsDB's BYOM engine ("inhouse" mode): ordinary least squares on the
# numeric feature columns. It lets tests and the demo train and predict offline, with no model hub.
# MindsDB finds the class by its train and predict methods and pickles its __dict__ after training.
import numpy as np
import pandas as pd

class LinearModel:
    def train(self, df, target_col, args=None):
        self.target = target_col
        self.features = [c for c in df.columns if c != target_col]
        X = df[self.features].apply(pd.to_numeric, errors="coerce").fillna(0.0).to_numpy(float)
        X = np.c_[X, np.ones(len(X))]
        y = pd.to_numeric(df[target_col], errors="coerce").fillna(0.0).to_numpy(float)
        self.coef = np.linalg.lstsq(X, y, rcond=None)[0].tolist()

    def predict(self, df, args=None):
        X = df.reindex(columns=self.features).apply(pd.to_numeric, errors="coerce").fillna(0.0).to_numpy(float)
        out = df.copy()
        out[self.target] = np.c_[X, np.ones(len(X))] @ np.array(self.coef)
        return out
